"""frontier_case_03, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_03-5694cfb8c940728e

Two independent defects. Layer A (dataset.py + augment.py): WindowDataset scales every window once into
one stored tensor and __getitem__ hands the augmentation self.x[i], a view of that tensor; CollarAugment
works in place (mul_, add_, masked assignment), so every draw's gain, noise and dropped readings are
written back and compound epoch after epoch: by the last epoch the noise of a dozen draws sits in every
training input (mean square up by a sixth), while the validation inputs are untouched. Layer B
(data.py + features.py): load_exports lists each farm's cows in the order the export first lists them (the
gateway does not always report in tag order), while cow_baselines stacks the per-cow medians in np.unique's
sorted order and repeats them block by block; every training cow listed out of tag order gets a
neighbour's baseline, so her departures (the inputs heat is seen in) are wrong. Every run is the
README's `python train.py` at train.seed = s (12 epochs of 55 batches of 64). Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- recomputed `every_epoch_trained`: >= 600 training forwards;
- recomputed `input_scale_stationary`: mean square of the training inputs (clipped at +-4), last 10% of
  training forwards / first 10%, <= 1.02 (broken 1.17; gold 0.998-1.005; a fix that leaves only the
  gain in place 1.04). The statistic depends on the random stream only, not on the kernels;
- recomputed `augmentation_still_applied`: early share of zero inputs in [0.015, 0.06] (the 3% dropout;
  switching the augmentation off fails here);
- reported `balanced_accuracy` >= 0.89 and `alert_recall` (heat) >= 0.65 on the final printed lines
  (broken 0.738-0.753 and 0.13-0.25; A fixed alone = v0.4, 0.863-0.874 and 0.59-0.61; B fixed alone
  0.892-0.899 and 0.62-0.66; both fixed 0.909-0.913 and 0.695-0.703).

- recomputed `departures_centred_per_cow` (layer B's mechanism): the departure half of
  model_inputs(training table) has, for every training cow, a median within 0.25 robust spreads of zero
  (each row's own cow's baseline gives 0; the broken order gives several spreads). Skipped when the
  pipeline's functions are not in this form (then the outcome checks decide).

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final line equal the seed-0 run measured
here, within 2e-4) and `readme_run_bal_acc` (>= 0.89).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.compounding_augmentation import decide_training, readme_checks  # noqa: E402
from verifylib import decide_main  # noqa: E402

SETTINGS = {
    "min_forwards": 600, "window_div": 10, "max_sq_ratio": 1.02,
    "dropout_share": (0.015, 0.06), "min_bal_acc": 0.89, "alarm_label": "heat", "min_alarm_recall": 0.65,
    "print_tol": 2e-4,
}


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)
    off = m.number("departure_offset")
    if off >= 0:
        checks.check("departures_centred_per_cow", off <= 0.25, value=off, bound="<= 0.25",
                     source="recomputed")


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
