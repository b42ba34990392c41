"""wip_frontier_case_09, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-wip_frontier_case_09-43f52fd4060f2f5f

Two independent defects. Layer A (batching): pad_batch pads the tag sequences with pad_stack's default 0,
which is the `wall` tag, while the loss skips only IGNORE (-100); every short segment's padded tail (input
rows of zeros) trains as wall. Layer B (features): frame_readings stacks the float32 flux with the run files' int64
chainage (`chain_mm`, ~5.5e8 mm) in torch.column_stack, which promotes to float32 (spacing 64 mm there); the
generic changes() step then turns the 1.5-5 mm frame steps the model needs to tell pitting from general metal
loss (same dip, different axial length) into 0 or 64 mm. Every run is the README's `python train.py` at train.seed = s. Checks per seed:

- reported `model_found`, `training_steps_seen` (>= 150 steps with the output's gradient seen);
- reported `padding_gets_no_gradient`: the largest |d loss / d output| at padded frames (input rows exactly
  zero) over the whole run is <= 1e-12 (broken: about 1e-3 and up; a fix that ignores padding gives 0
  exactly; a run without padding passes trivially), and `real_frames_get_gradient`;
- recomputed `weld_step_consistent_across_segments`: the coefficient of variation, across segments, of the
  axial input's weld step (median at weld frames minus median at wall frames) is <= 0.20 (every segment
  calibrated with its own gain: about 0.08);
- recomputed `inputs_equal_float64_recomputation`: on every segment the run files hold, each raw channel of
  the model's input is an affine function of (counts - reference) computed in float64, to within 0.05 counts
  (any signed or float subtraction: ~2e-5, float32 rounding; broken: ~7e4 on 270 of 427 segments; clamping
  or zeroing the wrapped frames: whole counts; dropping segments fails the count);
- recomputed `frame_steps_equal_float64_recomputation`: the step channel (input channel 6) is an affine
  function of the float64 difference of the chainage readings on every segment, within 0.05 mm (float64,
  relative readings before the cast: ~1e-4 mm; broken: up to 64 mm);
- reported `rare_tag_recall` (dent, pitting, metal_loss) >= 0.65, `macro_f1` >= 0.79 and `frame_accuracy` >= 0.93
  on the final printed lines (sanity bounds on the outcome; a fix that ignores wall frames altogether
  fails them).

Then, on what the README's own command printed (source readme_run): `readme_run_completes`,
`readme_run_matches_measured_training` (the three final lines equal the seed-0 run measured here within
2e-4), `readme_run_macro_f1` and `readme_run_rare_recall` (the bounds above).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.padded_frame_labels import decide_training, readme_checks  # noqa: E402
from verifylib import decide_main  # noqa: E402

SETTINGS = {
    "min_steps": 150, "pad_grad_tol": 1e-12, "min_weld_segments": 100, "max_weld_cv": 0.20,
    "max_input_residual": 0.05,
    "max_step_residual": 0.05, "n_tags": 5,
    "rare": (2, 3, 4), "min_rare_recall": 0.65, "min_macro_f1": 0.79, "min_frame_acc": 0.93, "print_tol": 2e-4,
}


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
