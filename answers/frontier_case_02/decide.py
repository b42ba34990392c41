"""frontier_case_02, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_02-dec7404a818ca084

Two independent defects. Layer A (model building): configs/collar_mlp.toml is the Keras original's
architecture file, where bn_momentum = 0.99 means "keep 99% of the running statistic"; build_collarnet
passes it to nn.BatchNorm1d(momentum=...), where it is the share of the NEW batch, so the running mean and
variance the model evaluates with are essentially the last training batch's (16 windows): a jumpy validation
curve and val acc 0.716-0.734 instead of v0.3's 0.749-0.758. Layer B (input features): dataset.visit_rates
builds the feed-bunk visit rate in np.zeros_like(visits), and pandas reads this season's bunk_visits column
(no blanks) as int64, so visits / logged hours is truncated toward zero on assignment: every rate below one
visit per hour becomes 0 and the rest lose their fraction. Ketosis, told apart mostly by a rate that drops
to 0.3-0.7 per hour, gets F1 0.42-0.53 instead of 0.68 (a third of ketosis cases are subclinical, the
README's true partial excuse). Checks per seed on the README's `python train.py` at train.seed = s:

- reported `readme_config_trains`, `training_forward_seen`, `batch_norm_kept` (>= 3 BatchNorm layers
  tracking running statistics: removing batch norm hides A);
- reported `running_stats_average_many_batches`: every BatchNorm momentum <= 0.1 (None, a cumulative
  average, counts as 0; broken 0.99; the correct translation 0.01; PyTorch's default 0.1);
- reported `val_accuracy` >= 0.745, `alert_recall` (heat) >= 0.35 and `ketosis_f1` >= 0.60 on the printed
  lines (broken 0.716-0.734 and F1 0.44-0.52; A fixed alone 0.749-0.758 and 0.42-0.53; both 0.805-0.824
  and 0.68);
- seed 0, `visit_rate_input_is_float_ratio`: some column of dataset.model_inputs(load_exports()), rows matched by
  window id, equals float64 bunk_visits / logged_h from the raw CSVs within 1e-6 relative (broken: errors up to 100%).

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final line equal the seed-0 run measured
here, within 2e-4), `readme_run_val_acc` (>= 0.745) and `readme_run_alert_recall` (>= 0.35).
"""

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.keras_bn_momentum import decide_training, readme_checks  # noqa: E402
from verifylib import decide_main  # noqa: E402

SETTINGS = {
    "min_bn_layers": 3, "max_momentum": 0.1, "min_acc": 0.745, "alert_label": "heat",
    "min_alert_recall": 0.35, "print_tol": 2e-4,
}
MIN_KETOSIS_F1 = 0.60
MAX_RATE_REL_ERROR = 1e-6


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)
    out = m.value("stdout", str)
    f1 = re.search(r"ketosis ([0-9.]+)", next((ln for ln in out.splitlines() if "F1 by state" in ln), ""))
    f1 = float(f1.group(1)) if f1 else float("nan")
    checks.check("ketosis_f1", f1 >= MIN_KETOSIS_F1, value=f1, bound=f">= {MIN_KETOSIS_F1}", source="reported",
                 limit=MIN_KETOSIS_F1, sense=">")
    if seed == 0:
        err = m.value("rate_rel_error", float)
        checks.check("visit_rate_input_is_float_ratio", err <= MAX_RATE_REL_ERROR, value=err,
                     bound=f"<= {MAX_RATE_REL_ERROR} relative error of the closest input column against float64 "
                           "visits / logged hours from the raw exports", source="reported")


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
