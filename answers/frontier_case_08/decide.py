"""frontier_case_15, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_15-98169ede956ba894

Two independent defects. Layer A (trainer): Trainer.setup builds the AdamW param groups from the model as
loaded (the 2025 backbone and its 4-state head); the LabelAdapter callback then replaces the head for the
5 states of the 2026 data at on_fit_start, so the new head is in no param group and keeps its random
initialization (std 0.02) while the backbone, at 0.15 x the learning rate, trains around it. Layer B
(sampling): build_train_loader takes the class-balanced draw weights from the table's rows (export order),
while WindowDataset stores the windows grouped by hive and in time order, so every weight belongs to
another window and the draws follow the data's own class mix (normal about 0.37, queenless about 0.09)
instead of a fifth each. Every run is the README's `python train.py` at train.seed = s (10 epochs of 45
batches of 64). Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- recomputed `every_parameter_trains`: every parameter of the model changed between its first training
  forward and the end of run() (the orphaned head is bit-identical; a larger head initialization leaves it so);
- recomputed `every_epoch_drawn`: >= 28,800 training labels drawn;
- recomputed `draws_are_class_balanced`: each state's share of the drawn labels within 0.03 of 1/5
  (broken: largest deviation 0.19; a plain shuffle or weights from sorted labels fail too);
- reported `balanced_accuracy` >= 0.80 and `alarm_recall` (queenless) >= 0.65 on the final printed lines
  (broken 0.72-0.78 and 0.02-0.31; A fixed alone 0.81-0.83 and 0.49-0.56; both fixed 0.84 and 0.75-0.76).

Then, on what the README's own command printed (source readme_run): `readme_run_completes`,
`readme_run_matches_measured_training` (every epoch row and the final line equal the seed-0 run measured
here, within 2e-4) and `readme_run_bal_acc` (>= 0.80).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.orphaned_parameters import decide_training, readme_checks  # noqa: E402
from verifylib import decide_main  # noqa: E402

SETTINGS = {
    "n_classes": 5, "min_draws": 10 * 45 * 64, "share_tol": 0.03, "moved_atol": 1e-6,
    "min_bal_acc": 0.80, "alarm_label": "queenless", "min_alarm_recall": 0.65, "print_tol": 2e-4,
}


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
