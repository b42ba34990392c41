"""case_10, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-c10-b81f2d6e09a4c357

The bug adds the squared PDE residual in (W/m^3)^2 (scale k dT / L^2, ~1e10 for the 1 mm
plate) to the squared boundary error in K^2: the residual outweighs the boundary term by
~1e14 in gradient, so Adam follows the residual and the faces end 80-145 K off. The balance
moves as (k / L^2)^2, so whatever is tuned at one plate is off at another; only a
formulation whose terms are commensurate at every scale (nondimensionalized, or otherwise in
one consistent set of units) solves every plate at the same settings. The invariant is
therefore the solution at the README's training settings on plates of other units as well as
the README's, measured against this file's own analytic solution
T = T_hot + (T_cold - T_hot) xi + q L^2 / (2k) xi (1 - xi), xi = x / L:

  readme: L 1 mm, 500 K / 300 K, k 50, q 0 (the README's plate);
  thin:   L 0.2 mm, 600 K / 300 K, k 50, q 0 (the residual's weight x625 vs the README's:
          rejects a loss weight tuned to the 1 mm plate);
  heated: L 5 cm, 500 K / 300 K, k 15, q 1e6 W/m^3 (a 21 K bump; rejects a formulation
          whose source term is not rescaled with the derivative, and a tuned weight again).

Checks per seed and slab:
- `face_errors[<slab>]`: both face temperatures within 1 K (README: "a fraction of a
  kelvin"; fixed: < 0.2 K; bug: 80-200 K);
- `rel_l2[<slab>]`: relative L2 error of the field against the analytic one < 1e-3 (README:
  "well under 1e-3"; fixed: 5e-6 - 1.5e-4; bug: 0.15-0.22);
  both are `recomputed` when the field the measuring process recorded is what this file's
  own copy of the case's TemperatureField gives with the trained weights (the case's model,
  unchanged), and `reported` when the agent's model computes T differently (e.g. with the
  boundary values built in), so the field could only be taken as recorded;
- reported `trainer_ran_readme_settings[<slab>]`: 400 Adam steps at lr 5e-3.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import Unreadable, decide_main  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

SLABS = {  # (L [m], T_hot [K], T_cold [K], k [W/(m K)], q [W/m^3]) -- as the measuring half runs them
    "readme": (1e-3, 500.0, 300.0, 50.0, 0.0),
    "thin": (2e-4, 600.0, 300.0, 50.0, 0.0),
    "heated": (5e-2, 500.0, 300.0, 15.0, 1e6),
}
N_GRID, STEPS, LR, HIDDEN = 201, 400, 5e-3, 20
FACE_BOUND, REL_BOUND = 1.0, 1e-3
SAME_FIELD_TOL = 1e-6  # kelvin, between the recorded field and this file's evaluation of the weights


def exact(x, L, T_hot, T_cold, k, q):
    xi = x / L
    return T_hot + (T_cold - T_hot) * xi + q * L ** 2 / (2 * k) * xi * (1 - xi)


def temperature_field(L, T_hot, T_cold, hidden=HIDDEN):
    """The case's TemperatureField (model.py), reproduced here: T = T_ref * MLP(2x/L - 1)."""
    model = nn.Module()
    mlp = nn.Module()
    mlp.net = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                            nn.Linear(hidden, 1)).double()
    model.mlp = mlp
    T_ref = 0.5 * (T_hot + T_cold)
    return model, lambda x: T_ref * model.mlp.net(2.0 * x / L - 1.0)


def field_source(m, name, slab, x, recorded):
    """'recomputed' when this file's copy of the case's model, loaded with the trained weights,
    gives the recorded field; 'reported' otherwise."""
    L, T_hot, T_cold, _, _ = slab
    model, forward = temperature_field(L, T_hot, T_cold)
    try:
        state = m.tensors(f"{name}_model", keys=model.state_dict().keys())
        model.load_state_dict(state)
    except (Unreadable, RuntimeError):
        return "reported"
    with torch.no_grad():
        mine = forward(x).reshape(-1)
    same = bool(torch.isfinite(mine).all()) and (mine - recorded).abs().max().item() < SAME_FIELD_TOL
    return "recomputed" if same else "reported"


def decide(seed, m, checks):
    for name, slab in SLABS.items():
        n, kinds, lrs = (m.number(f"{name}_optimizer_steps"), m.value(f"{name}_optimizers", list),
                         m.value(f"{name}_learning_rates", list))
        checks.check(f"trainer_ran_readme_settings[{name}]", n == STEPS and kinds == ["Adam"] and lrs == [LR],
                     value={"steps": n, "optimizers": kinds, "lrs": lrs}, bound=f"{STEPS} Adam steps at lr {LR}",
                     source="reported")

        L, T_hot, T_cold, k, q = slab
        T = m.tensors(f"{name}_field", keys=["T"])["T"].double().reshape(-1)
        if T.numel() != N_GRID:
            raise Unreadable(f"{name} field has {T.numel()} values, expected {N_GRID}")
        x = torch.linspace(0.0, L, N_GRID, dtype=torch.float64).reshape(-1, 1)
        source = field_source(m, name, slab, x, T)
        want = exact(x, *slab).reshape(-1)
        finite = bool(torch.isfinite(T).all())
        face = max(abs(T[0].item() - T_hot), abs(T[-1].item() - T_cold)) if finite else float("inf")
        rel = ((T - want).norm() / want.norm()).item() if finite else float("inf")
        tag = f"{name}: L={L:g}m,T={T_hot:g}/{T_cold:g}K,k={k:g},q={q:g}"
        checks.check(f"face_errors[{tag}]", face < FACE_BOUND, value=round(face, 4), bound=f"< {FACE_BOUND} K",
                     source=source)
        checks.check(f"rel_l2[{tag}]", rel < REL_BOUND, value=float(f"{rel:.3e}"), bound=f"< {REL_BOUND:g}",
                     source=source)


decide_main(decide)
