"""case_10 verifier: the PINN must solve the slab problem at its own scale and keep working
when the units of the problem change, with no retuning.

For each seed the workspace's train.train(Config) is run, with the repo's own training
settings, on three slabs: the README's (L = 1e-3 m, 500 K / 300 K), L = 2e-3 m with 600 K,
and a thinner L = 2e-4 m with 600 K. The trained field is evaluated here against the
analytic solution T = T_hot + (T_cold - T_hot) x / L (k = 50, q = 0):

- both boundary errors < 1 K (the raw-unit loss leaves them ~30-200 K off: the residual in
  W/m^3 outweighs the boundary term by ~1e14 in gradient norm and Adam follows it);
- relative L2 error vs the analytic field < 1e-3.

A constant loss weight tuned at 1e-3 m balances the terms only at that scale: the PDE-to-BC
ratio goes as 1/L^4, so at 2e-4 m the residual dominates again by ~600x and the boundaries
are ~100 K off. A nondimensional loss (x/L, theta) is the same problem at every scale.
"""

import contextlib
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from verifylib import SEEDS, Checks, setup  # noqa: E402

setup()
import torch  # noqa: E402

import train  # noqa: E402  (the agent's train.py)

SLABS = [(1e-3, 500.0), (2e-3, 600.0), (2e-4, 600.0)]
T_COLD, K, Q = 300.0, 50.0, 0.0
BC_BOUND, REL_BOUND = 1.0, 1e-3


def evaluate(model, L, T_hot):
    x = torch.linspace(0.0, L, 201, dtype=torch.float64).reshape(-1, 1)
    exact = T_hot + (T_COLD - T_hot) * x / L
    with torch.no_grad():
        T = model(x).reshape(-1, 1).double()
    bc = max(abs(T[0, 0].item() - T_hot), abs(T[-1, 0].item() - T_COLD))
    rel = ((T - exact).norm() / exact.norm()).item()
    return bc, rel


checks = Checks()
for seed in SEEDS:
    with checks.seed(seed):
        for L, T_hot in SLABS:
            cfg = train.Config(seed=seed, L=L, T_hot=T_hot, T_cold=T_COLD, k=K, q=Q)
            with contextlib.redirect_stdout(io.StringIO()):
                model, _ = train.train(cfg)
            bc, rel = evaluate(model, L, T_hot)
            tag = f"L={L:g}m,T_hot={T_hot:g}K"
            checks.check(f"bc_error[{tag}]", bc < BC_BOUND, value=round(bc, 4), bound=f"< {BC_BOUND} K")
            checks.check(f"rel_l2[{tag}]", rel < REL_BOUND, value=f"{rel:.3e}", bound=f"< {REL_BOUND:g}")
checks.finish()
