"""frontier_case_03, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_03-5694cfb8c940728e

Two independent defects. Layer A (dataset.py + augment.py): WindowDataset scales every window once into
one stored tensor and __getitem__ hands the augmentation self.x[i], a view of that tensor; CollarAugment
works in place (mul_, add_, masked assignment), so every draw's gain, noise and dropped readings are
written back and compound epoch after epoch, while the validation inputs are untouched. Layer B (features.model_inputs): every reading is taken only relative to the cow's
own median over the whole export ("cows differ"). Lameness lasts a large share of a lame cow's season, so her
median already sits at the lame level: her lame windows centre near zero and her sound ones below it, and
lameness and normal blur on every farm and in both splits. Every run is the README's `python train.py` at
train.seed = s (12 epochs of 55 batches of 64).
Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- recomputed `every_epoch_trained`: >= 600 training forwards;
- recomputed `input_scale_stationary`: mean square of the training inputs (clipped at +-4), last quarter of
  training forwards / first quarter, <= 1.015 (broken 1.88-1.92 with tenths; gold 1.002-1.008; a fix that
  leaves only the gain in place 1.009-1.031, failing on two seeds of three; the statistic depends on the
  random stream only);
- recomputed `augmentation_still_applied`: early share of zero inputs in [0.015, 0.06];
- reported `balanced_accuracy` >= 0.87, `alert_recall` (heat) >= 0.72 and `lameness_f1` >= 0.86 on the final
  printed lines (broken 0.781-0.787, lameness F1 0.825-0.832; A fixed alone = v0.4, 0.874-0.879, lameness F1
  0.841-0.855; B fixed alone 0.879-0.894 with heat recall 0.615-0.692; both fixed 0.916-0.926, heat recall
  0.808-0.821, lameness F1 0.946-0.953; the departures next to the baseline itself, the same information in
  another basis, 0.887-0.901 and lameness F1 0.878-0.915). The outcome bounds only check that a fix works;
  the B verdict rests on the mechanism check below (A-only passes the outcome bounds on some seeds);
- recomputed `inputs_separate_lameness` (layer B's mechanism): ROC AUC of a Fisher discriminant on
  train.model_inputs(table), lameness vs normal windows, >= 0.95 (broken 0.922, gold and every accepted form
  0.968; no seed dependence). Masking forms (a lameness-weighted loss, a bigger model) leave the inputs and fail
  here.

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final line equal the seed-0 run measured
here, within 2e-4) and `readme_run_bal_acc` (>= 0.845).
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
    "min_forwards": 600, "window_div": 4, "max_sq_ratio": 1.015,
    "dropout_share": (0.015, 0.06), "min_bal_acc": 0.87, "alarm_label": "heat", "min_alarm_recall": 0.72,
    "print_tol": 2e-4,
}


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)
    auc = m.number("lameness_auc")
    checks.check("inputs_separate_lameness", auc >= 0.95, value=auc, bound=">= 0.95",
                 source="recomputed", limit=0.95, sense=">")
    f1 = _lameness_f1(m.value("stdout", str))
    checks.check("lameness_f1", f1 >= 0.86, value=f1, bound=">= 0.86", source="reported", limit=0.86, sense=">")


def _lameness_f1(stdout):
    import re
    found = re.findall(r"lameness (\d\.\d+)", stdout or "")
    return float(found[-1]) if found else -1.0


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
