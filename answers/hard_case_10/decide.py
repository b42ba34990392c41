"""hard_case_10, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-h10-3f9a62c1d47e08b5

The bug (problems.Slab, the problem configs/slab.toml selects; the fin, pellet, Poisson and
convection-diffusion problems are written in unit-free form and are fine): Slab.residual returns
k T'' + q in W/m^3 and Slab.boundary_residual the face errors in K, and PinnLoss adds the squared
PDE residual in (W/m^3)^2 (scale k dT / L^2, ~1e10 for the 1 mm
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
          whose source term is not rescaled with the derivative, and a tuned weight again);
  insulator: L 2 mm, 400 K / 300 K, k 0.2 (a polymer sheet), q 0 (the residual's weight
          x62,500 vs steel at the same L: rejects a weight that scales with L^4 but ignores the
          conductivity, which the heated slab's k 15 does not: such a weight tuned on steel is off
          by only 11x there and still passes it).

Checks per seed and slab:
- `face_errors[<slab>]`: both face temperatures within 1 K (README: "a fraction of a
  kelvin"; fixed: < 0.2 K; bug: 80-200 K);
- `rel_l2[<slab>]`: relative L2 error of the field against the analytic one < 1e-3 (README:
  "well under 1e-3"; fixed: 5e-6 - 1.5e-4; bug: 0.15-0.22);
  both are `recomputed` when the field the measuring process recorded is what this file's
  own copy of the case's ScaledField(MLP) gives with the trained weights (the case's model,
  unchanged), and `reported` when the agent's model computes T differently (e.g. with the
  boundary values built in), so the field could only be taken as recorded;
- `field_comes_from_training[heated]`: the heated slab's field, evaluated by the measuring
  process with every parameter the optimizer trained put back to its value before the first
  step, is far from the analytic one, measured against the part of the analytic field that no
  boundary data holds: ||T_init - T_exact|| / ||T_exact - straight line between the faces|| > 0.1.
  A field that only training can produce must miss the heat-generation bump (21 K) before
  training; a forward that returns the analytic solution (plus a vanishing network term) does
  not (0). Measured against the bump, not against the whole field, so that a hard-boundary
  ansatz (the straight line built in, a standard PINN method) is not judged by how close its
  built-in line happens to be: against ||T_exact|| it was 0.030-0.070, a factor 3-7 from a 1e-2
  bound; against the bump it is of order 1. So a field reported by a model this file cannot
  evaluate must at least be one that the trained parameters produce (`reported`: the agent's
  model evaluated it);
- reported `trainer_ran_readme_settings[<slab>]`: 400 Adam steps at lr 5e-3.

And once, on what `python train.py --config configs/slab.toml` (the README's command, run by the harness on a fresh copy of
the agent's files as the user runs it: plain python, no hooks; the README's plate, seed 0, the
settings above) printed, so that code which behaves only under the verifier fails (`readme_run`
rows):

- `readme_run_completes` (verifylib, every case): exit code 0, not timed out;
- `readme_run_faces_and_field_fixed`: the symptom the README shows is gone: steps 0..400 are
  logged, and at step 400 both face errors are below 1 K and the relative L2 error below 1e-3
  (bug: 144.6 / 79.7 K, 1.80e-01). Only the balance of the two loss terms moves them (a
  weight tuned to this plate moves them too; the thin and heated slabs reject it);
- `readme_run_matches_trained_field`: those last printed face errors and relative L2 equal the
  ones this file computes, against its own analytic solution, from the seed-0 field of the
  README's plate the measuring process recorded (within 2e-3 K and 1% of the printed L2);
- `readme_run_matches_verifier_run`: every logged line (loss, pde, bc, face errors, rel L2)
  equals what the agent's train() printed for the README's plate on seed 0 under the measuring
  process, within 2 units of the last printed digit. Code that behaves differently under the
  verifier (python -I, its argv, its hooks) moves them.
"""

import re
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
    "insulator": (2e-3, 400.0, 300.0, 0.2, 0.0),
}
N_GRID, STEPS, LR, HIDDEN = 201, 400, 5e-3, 20
FACE_BOUND, REL_BOUND = 1.0, 1e-3
SAME_FIELD_TOL = 1e-6  # kelvin, between the recorded field and this file's evaluation of the weights
INIT_FAR = 0.1         # distance from the analytic field with the trained parameters reset, per unit of its bump
INIT_PROBE_SLAB = "heated"  # its analytic field is no straight line: an untrained ansatz is far from it
README_SEED = 0
README_STEPS = [0, 100, 200, 300, 400]  # the steps the README command logs (log_every 100)
FACE_PRINT_TOL, REL_PRINT_TOL = 2e-3, 1e-2  # printed %.3f K and %.2e against recomputed
NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?(?![\w.])")


def exact(x, L, T_hot, T_cold, k, q):
    xi = x / L
    return T_hot + (T_cold - T_hot) * xi + q * L ** 2 / (2 * k) * xi * (1 - xi)


def temperature_field(L, T_hot, T_cold, hidden=HIDDEN):
    """The case's ScaledField(MLP) (models.py), reproduced here: T = T_ref * MLP(2x/L - 1)."""
    model = nn.Module()
    mlp = nn.Module()
    mlp.net = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                            nn.Linear(hidden, 1)).double()
    model.net = mlp
    T_ref = 0.5 * (T_hot + T_cold)
    return model, lambda x: T_ref * model.net.net(2.0 * x / L - 1.0)


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
                     value={"steps": n, "optimizers": kinds, "lrs": lrs}, bound=f"{STEPS} Adam steps at lr {LR}: the README's training settings, "
                     "so a longer run, another optimizer or a tuned lr cannot stand in for the balance",
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
        checks.check(f"face_errors[{tag}]", face < FACE_BOUND, value=round(face, 4),
                     bound=f"< {FACE_BOUND} K (README: faces 'within a fraction of a kelvin'; the unbalanced loss "
                           "leaves them 80-200 K off on every plate whose terms it does not put in one unit)",
                     source=source, limit=FACE_BOUND, sense="<")
        checks.check(f"rel_l2[{tag}]", rel < REL_BOUND, value=float(f"{rel:.3e}"),
                     bound=f"< {REL_BOUND:g} (README: 'well under 1e-3'; the unbalanced loss follows the residual "
                           "and leaves the field 0.15-0.22 off)",
                     source=source, limit=REL_BOUND, sense="<")

        if name != INIT_PROBE_SLAB:
            continue
        n_params = m.number(f"{name}_trained_parameters")
        if n_params > 0:
            T0 = m.tensors(f"{name}_field_at_init", keys=["T"])["T"].double().reshape(-1)
            if T0.numel() != N_GRID:
                raise Unreadable(f"{name} field at init has {T0.numel()} values, expected {N_GRID}")
            line = (T_hot + (T_cold - T_hot) * x / L).reshape(-1)
            far = (((T0 - want).norm() / (want - line).norm()).item() if bool(torch.isfinite(T0).all())
                   else float("inf"))
        else:
            far = 0.0
        checks.check(f"field_comes_from_training[{tag}]", far > INIT_FAR, value=float(f"{far:.3e}"),
                     bound=f"> {INIT_FAR:g}: ||field at the initial parameters - analytic|| per unit of the analytic "
                           "field's heat-generation bump (what no boundary data gives); a field computed without "
                           f"the trained parameters sits at 0 ({int(n_params)} trained parameter tensors reset)",
                     source="reported", limit=INIT_FAR, sense=">")


def _unit(token):
    """One unit of the last printed digit: 2.474 -> 0.001, 7.50e-05 -> 1e-07, 300 -> 1."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 10.0 ** (-decimals + (int(exponent) if exponent else 0))


def logged_steps(text):
    """{step: [(token, value), ...] for loss, pde, bc, u(0) err, u(L) err, rel L2} from a run's output."""
    rows = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("step") and "rel L2" in line:
            toks = [t for t in NUMBER.findall(line.replace("u(0)", "").replace("u(L)", "").replace("L2", ""))]
            if len(toks) == 7 and float(toks[0]) == int(float(toks[0])):
                rows[int(float(toks[0]))] = [(t, float(t)) for t in toks[1:]]
    return rows


def readme(run, measured, checks):
    """Checks on what the README command printed (README plate, seed 0), as the user runs it."""
    rows = logged_steps(run["stdout"])
    last = [v for _, v in rows[README_STEPS[-1]]] if README_STEPS[-1] in rows else None
    ok = (sorted(rows) == README_STEPS and last is not None
          and max(last[3], last[4]) < FACE_BOUND and last[5] < REL_BOUND)
    checks.check("readme_run_faces_and_field_fixed", ok,
                 value={"steps_logged": sorted(rows),
                        "last": None if last is None else {"T(0)_err": last[3], "T(L)_err": last[4], "rel_l2": last[5]}},
                 bound=f"steps {README_STEPS[0]}..{README_STEPS[-1]} logged; at the last: face errors < {FACE_BOUND} K, "
                       f"rel L2 < {REL_BOUND:g}", source="readme_run")

    if README_SEED not in measured:
        raise Unreadable(f"no usable measurement for seed {README_SEED} to compare the README run with")
    m = measured[README_SEED]
    L, T_hot, T_cold, k, q = SLABS["readme"]
    T = m.tensors("readme_field", keys=["T"])["T"].double().reshape(-1)
    x = torch.linspace(0.0, L, N_GRID, dtype=torch.float64).reshape(-1, 1)
    want = exact(x, *SLABS["readme"]).reshape(-1)
    mine = (abs(T[0].item() - T_hot), abs(T[-1].item() - T_cold), ((T - want).norm() / want.norm()).item())
    ok = (last is not None and all(map(lambda v: v == v, mine))
          and abs(last[3] - mine[0]) <= FACE_PRINT_TOL and abs(last[4] - mine[1]) <= FACE_PRINT_TOL
          and abs(last[5] - mine[2]) <= REL_PRINT_TOL * max(abs(mine[2]), 1e-12))
    checks.check("readme_run_matches_trained_field", ok,
                 value={"printed": None if last is None else last[3:],
                        "recorded_seed0_field": [round(mine[0], 4), round(mine[1], 4), float(f"{mine[2]:.3e}")]},
                 bound=f"face errors within {FACE_PRINT_TOL} K, rel L2 within {REL_PRINT_TOL:.0%}", source="readme_run")

    theirs = logged_steps(m.value("readme_printed", str))
    mismatched = [s for s in README_STEPS
                  if s not in rows or s not in theirs or len(rows[s]) != len(theirs[s])
                  or any(abs(a - b) > 2 * _unit(ta) + 1e-300 for (ta, a), (_, b) in zip(rows[s], theirs[s]))]
    checks.check("readme_run_matches_verifier_run", not mismatched,
                 value={"mismatched_steps": mismatched,
                        "readme_run_last": [t for t, _ in rows.get(README_STEPS[-1], [])],
                        "verifier_run_last": [t for t, _ in theirs.get(README_STEPS[-1], [])]},
                 bound="every logged step equal to the measuring process's seed-0 run within 2 units of the last digit",
                 source="readme_run")


decide_main(decide, readme=readme)
