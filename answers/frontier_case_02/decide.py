"""frontier_case_02, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_02-dec7404a818ca084

Two independent defects. Layer A (model building): configs/collar_mlp.toml is the Keras original's
architecture file, where bn_momentum = 0.99 means "keep 99% of the running statistic"; build_collarnet
passes it to nn.BatchNorm1d(momentum=...), where it is the share of the NEW batch, so the running mean and
variance the model evaluates with are essentially the last training batch's (16 windows): a noisy validation
curve and val acc 0.876-0.885 instead of v0.3's 0.893-0.916. Layer B (dataset assembly): cow_order and
with_deltas group the windows by collar tag, but every farm numbers its collars C01..C24, so the four farms'
cows with one tag form one interleaved series and each window's "change since the cow's recent windows" is
taken against other cows: heat, visible mainly as such a change, is caught in 38-41% of its windows instead
of 65-68% (a third of heats are silent, the README's true partial excuse). Checks per seed on the README's
`python train.py` at train.seed = s:

- reported `readme_config_trains`, `training_forward_seen`, `batch_norm_kept` (>= 3 BatchNorm layers
  tracking running statistics: removing batch norm hides A);
- reported `running_stats_average_many_batches`: every BatchNorm momentum <= 0.1 (None, a cumulative
  average, counts as 0; broken 0.99; the correct translation 0.01; PyTorch's default 0.1);
- reported `val_accuracy` >= 0.89 and `alert_recall` (heat) >= 0.55 on the final printed lines (broken
  0.876-0.885 and 0.41-0.59; A fixed alone 0.893-0.916 and 0.38-0.41; both fixed 0.93 and 0.65-0.68).

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final line equal the seed-0 run measured
here, within 2e-4), `readme_run_val_acc` (>= 0.89) and `readme_run_alert_recall` (>= 0.55).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.keras_bn_momentum import decide_training, readme_checks  # noqa: E402
from verifylib import decide_main  # noqa: E402

SETTINGS = {
    "min_bn_layers": 3, "max_momentum": 0.1, "min_acc": 0.89, "alert_label": "heat",
    "min_alert_recall": 0.55, "print_tol": 2e-4,
}


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
