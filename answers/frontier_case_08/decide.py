"""frontier_case_08, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_08-3c7e1f09a2d45b68

Two independent defects. Layer A (trainer + callbacks): the GradientClip callback clips in on_step_end,
which the Trainer calls after optimizer.step(), so every update applies the unclipped gradients (the
clip rescales gradients already used, and the next step's zero_grad discards them); the storm windows'
rare large gradients jolt AdamW's moments. Layer B (data loading + dataset): each zone's irrigation water
meter is exported as its running total; load_exports makes the readings a torch.tensor of Python floats
(float32 by default) and with_deltas takes the window's usage as the difference of two totals on that tensor,
so on every house's meters (1e6-1.5e7 L, float32 spacing 0.06-1 L) the litre-level volumes a hunting valve passes
blur into rounding and the model confuses valve_hunting with normal. Every run is the README's `python train.py` at
train.seed = s (10 epochs of 45 batches of 64). Checks per seed:

- reported `readme_config_trains`, `every_step_seen` (>= 450 optimizer steps), `config_clips_at_readme_value`;
- recomputed `every_update_clipped`: the largest global gradient norm any optimizer step applied is at
  most grad_clip (1.0) x (1 + 1e-4) (broken: far above 1 on seed 0; a lower learning rate or clip_grad_value_ leave it > 1);
- recomputed `meter_usage_exact`: the water_meter_l column of every window's model input (the workspace's
  own pipeline, identity standardization) equals the float64 difference of the raw export's totals within
  0.05 L on all 3,840 windows (broken: up to 0.95 L in every house; float64 storage, zone-relative totals or
  differencing before the cast all pass; clipping, zeroing or dropping the meter fail);
- reported `balanced_accuracy` >= 0.83 and `state_f1` (valve_hunting) >= 0.43 on the final printed lines
  (broken 0.815-0.824 and 0.29-0.31; A fixed alone 0.835-0.848 and 0.41-0.50; B fixed alone 0.825-0.840 and
  0.31-0.37; both fixed 0.842-0.853 and 0.47-0.57).

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final line equal the seed-0 run measured
here, within 2e-4) and `readme_run_bal_acc` (>= 0.83).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.unclipped_update import decide_meter_usage, decide_training, readme_checks  # noqa: E402
from verifylib import decide_main  # noqa: E402

SETTINGS = {
    "min_steps": 10 * 45, "grad_clip": 1.0, "clip_rtol": 1e-4,
    "min_bal_acc": 0.83, "state": "valve_hunting", "min_state_f1": 0.43, "print_tol": 2e-4, "meter_tol": 0.05,
}


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)
    decide_meter_usage(m, checks, SETTINGS)


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
