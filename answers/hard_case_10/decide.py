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

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent  # the verifier's bundle, or answers/<case>/ in the repository
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.pinn_loss_units import COMMON_SLABS, SlabDecider  # noqa: E402
from verifylib import decide_main  # noqa: E402

# (L [m], T_hot [K], T_cold [K], k [W/(m K)], q [W/m^3]) -- as the measuring half runs them
SLABS = {**COMMON_SLABS, "insulator": (2e-3, 400.0, 300.0, 0.2, 0.0)}  # readme, thin, heated, insulator
STEPS, LR, HIDDEN, FACE_BOUND, REL_BOUND = 400, 5e-3, 20, 1.0, 1e-3
INIT_FAR = 0.1  # distance from the analytic field with the trained parameters reset, per unit of its bump
# models.py's ScaledField keeps its MLP in .net; train.py logs `u(0) err`, `u(L) err`; the README command logs
# steps 0-400 (log_every 100); the heated slab's analytic field is no straight line: an untrained ansatz is far
# from it
SETTINGS = {"steps": STEPS, "lr": LR, "hidden": HIDDEN, "model_attribute": "net", "log_field": "u", "readme_seed": 0,
            "readme_steps": [0, 100, 200, 300, 400], "probe_slab": "heated"}
# same_field: kelvin, between the recorded field and this file's evaluation of the weights; face_print and
# rel_print: the printed %.3f K and %.2e against the recomputed values
BOUNDS = {"face": FACE_BOUND, "rel": REL_BOUND, "same_field": 1e-6, "face_print": 2e-3, "rel_print": 1e-2}
TEXTS = {
    "trainer": f"{STEPS} Adam steps at lr {LR}: the README's training settings, so a longer run, another optimizer "
               "or a tuned lr cannot stand in for the balance",
    "face": f"< {FACE_BOUND} K (README: faces 'within a fraction of a kelvin'; the unbalanced loss leaves them "
            "80-200 K off on every plate whose terms it does not put in one unit)",
    "rel": f"< {REL_BOUND:g} (README: 'well under 1e-3'; the unbalanced loss follows the residual and leaves the "
           "field 0.15-0.22 off)",
}
PROBE = {
    "reset": "at_init", "what": "field at init", "limit": INIT_FAR, "value_format": ".3e",
    "bound": lambda n_params: (
        f"> {INIT_FAR:g}: ||field at the initial parameters - analytic|| per unit of the analytic field's "
        "heat-generation bump (what no boundary data gives); a field computed without the trained parameters sits "
        f"at 0 ({int(n_params)} trained parameter tensors reset)"),
}

decider = SlabDecider(SLABS, SETTINGS, BOUNDS, TEXTS, PROBE)
decide_main(decider.decide, readme=decider.readme)
