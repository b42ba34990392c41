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
          whose source term is not rescaled with the derivative, and a tuned weight again);
  insulating: L 10 cm, 330 K / 290 K, k 0.04 (a foam wall: the residual's weight (k / L^2)^2
          is 1250^2 x 100^2 away from the README's. A loss weight of L^4 times a constant tuned
          on the README plate cancels the length but not the conductivity, and leaves the field
          2e-2 to 9e-2 off here on seeds 0-2 (issue 22's hole); the gold patch 2e-5 to 5e-5).

Checks per seed and slab:
- `face_errors[<slab>]`: both face temperatures within 1 K (README: "a fraction of a
  kelvin"; fixed: < 0.2 K; bug: 80-200 K);
- `rel_l2[<slab>]`: relative L2 error of the field against the analytic one < 1e-3 (README:
  "well under 1e-3"; fixed: 5e-6 - 1.5e-4; bug: 0.15-0.22);
  both are `recomputed` when the field the measuring process recorded is what this file's
  own copy of the case's TemperatureField gives with the trained weights (the case's model,
  unchanged), and `reported` when the agent's model computes T differently (e.g. with the
  boundary values built in), so the field could only be taken as recorded;
- `field_comes_from_training[heated]`: the heated slab's interior profile (its 21 K bump over
  the straight line between the faces) comes from the trained parameters. The measuring process
  evaluates the field with every parameter the optimizer trained set to zero; its L2 distance
  from the analytic field, divided by the bump's L2 norm, must exceed 0.5. With its parameters
  zeroed the case's model gives T = 0 (about 28 bumps away), a hard-boundary ansatz its built-in
  straight line (exactly 1 bump away, on every seed and kernel: no random initialisation is
  involved), a forward that returns the analytic solution plus a network term 0. Before issue
  22 this reset the parameters to their initial values and measured against the whole field
  (> 1e-2): the ansatz's random initial interior sat at 0.0096 on one seed of a held-out variant.
  So a field reported by a model this file cannot evaluate must at least be one that the trained
  parameters produce (`reported`: the agent's model evaluated it);
- reported `trainer_ran_readme_settings[<slab>]`: 400 Adam steps at lr 5e-3.

And once, on what `python train.py` (the README's command, run by the harness on a fresh copy of
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
SLABS = {**COMMON_SLABS, "insulating": (1e-1, 330.0, 290.0, 0.04, 0.0)}  # readme, thin, heated, insulating
STEPS, LR, HIDDEN, FACE_BOUND, REL_BOUND = 400, 5e-3, 20, 1.0, 1e-3
ZEROED_FAR = 0.5  # distance from the analytic field, in bumps, with the trained parameters zeroed
# model.py's TemperatureField keeps its MLP in .mlp; train.py logs `T(0) err`, `T(L) err`; `python train.py`
# logs steps 0-400 (log_every 100); the heated slab's analytic field is no straight line: the bump must come
# from training
SETTINGS = {"steps": STEPS, "lr": LR, "hidden": HIDDEN, "model_attribute": "mlp", "log_field": "T", "readme_seed": 0,
            "readme_steps": [0, 100, 200, 300, 400], "probe_slab": "heated"}
# same_field: kelvin, between the recorded field and this file's evaluation of the weights; face_print and
# rel_print: the printed %.3f K and %.2e against the recomputed values
BOUNDS = {"face": FACE_BOUND, "rel": REL_BOUND, "same_field": 1e-6, "face_print": 2e-3, "rel_print": 1e-2}
TEXTS = {
    "trainer": f"{STEPS} Adam steps at lr {LR}, the README's settings (a longer or retuned training is not the fix "
               "of a loss whose terms are out of balance)",
    "face": f"< {FACE_BOUND} K: the larger face error of the trained field (README: 'a fraction of a kelvin'); the "
            "bug's residual outweighs the boundary term and leaves the faces 80-200 K off",
    "rel": f"< {REL_BOUND:g}: relative L2 error against the analytic field (README: 'well under 1e-3'); moved by any "
           "balance of the two loss terms that does not hold on this slab's length, temperatures and conductivity",
}
PROBE = {
    "reset": "zeroed", "what": "field with zeroed parameters", "limit": ZEROED_FAR, "value_format": ".4g",
    "bound": lambda n_params: (
        f"> {ZEROED_FAR:g}: |field with the {n_params:.0f} trained parameters zeroed - analytic| / |analytic - "
        "straight line between the faces|. The interior profile must come from training (the case's model: ~28, a "
        "hard-boundary ansatz: 1); a forward that builds in the analytic answer keeps it with no parameters (0)"),
}

decider = SlabDecider(SLABS, SETTINGS, BOUNDS, TEXTS, PROBE)
decide_main(decider.decide, readme=decider.readme)
