"""frontier_case_02, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_02-dec7404a818ca084

Two independent defects. Layer A (model building): configs/collar_mlp.toml is the Keras original's
architecture file, where bn_momentum = 0.99 means "keep 99% of the running statistic"; build_collarnet
passes it to nn.BatchNorm1d(momentum=...), where it is the share of the NEW batch, so the running mean and
variance the model evaluates with are essentially the last training batch's (16 windows): a jumpy validation
curve and val acc 0.780-0.800 instead of v0.3's 0.806-0.829. Layer B (input features): data.load_exports
turns every export's reading columns into one tensor with torch.tensor(list of floats), float32 by default;
one of those columns, milk_l, is the milk meter's running total (4e6-1.6e7 L, float32 spacing 0.5-1 L), and
dataset.with_deltas takes the change since the cow's previous window on that float32 tensor, so each window's
yield (about 8 L, sd 0.2 L between cows) carries a rounding error of up to 1 L. Ketosis, told apart from
normal mostly by a 0.6-0.9 L drop in yield, gets F1 0.37-0.47 with A fixed instead of 0.52-0.59 (a quarter of
ketosis windows are logged normal: the README's true partial excuse, data/bhb_recheck.csv). Checks per seed
on the README's `python train.py` at train.seed = s:

- reported `readme_config_trains`, `training_forward_seen`, `batch_norm_kept` (>= 3 BatchNorm layers
  tracking running statistics: removing batch norm hides A);
- reported `running_stats_average_many_batches`: every BatchNorm momentum <= 0.1 (None, a cumulative
  average, counts as 0; broken 0.99; the correct translation 0.01; PyTorch's default 0.1);
- reported `val_accuracy` >= 0.803, `alert_recall` (heat) >= 0.35 and `ketosis_f1` >= 0.33 (a floor: B is judged on mechanism) on the printed
  lines (broken 0.780-0.800 and F1 0.21-0.50; A fixed alone 0.806-0.829 and 0.37-0.47; both 0.826-0.840
  and 0.52-0.59);
- seed 0, `milk_yield_input_exact`: some column of dataset.model_inputs(load_exports()), rows matched by
  window id, equals the float64 change of milk_l since the same cow's previous window from the raw CSVs
  within 0.05 L (broken: up to 1 L).

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final line equal the seed-0 run measured
here, within 2e-4), `readme_run_val_acc` (>= 0.803) and `readme_run_alert_recall` (>= 0.35).
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
    "min_bn_layers": 3, "max_momentum": 0.1, "min_acc": 0.803, "alert_label": "heat",
    "min_alert_recall": 0.35, "print_tol": 2e-4,
}
MIN_KETOSIS_F1 = 0.33
MAX_MILK_ERROR_L = 0.05


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)
    out = m.value("stdout", str)
    f1 = re.search(r"ketosis ([0-9.]+)", next((ln for ln in out.splitlines() if "F1 by state" in ln), ""))
    f1 = float(f1.group(1)) if f1 else float("nan")
    checks.check("ketosis_f1", f1 >= MIN_KETOSIS_F1, value=f1, bound=f">= {MIN_KETOSIS_F1}", source="reported",
                 limit=MIN_KETOSIS_F1, sense=">")
    if seed == 0:
        err = m.value("milk_change_error", float)
        checks.check("milk_yield_input_exact", err <= MAX_MILK_ERROR_L, value=err,
                     bound=f"<= {MAX_MILK_ERROR_L} L max error of the closest input column against the float64 "
                           "change of milk_l since the cow's previous window in the raw exports", source="reported")


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
