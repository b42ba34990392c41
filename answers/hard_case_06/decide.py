"""hard_case_06, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-h06-5c1e0a7d92b4f318

The bug: configs/experiment.toml (what the README runs) selects features.normalization =
"batch", and normalize.BatchScaler z-scores each batch with its own mean and std; batches never
mix buildings, and bldg-D has no humidity reading (0.0 on every row), so that column's batch
std is 0 and (x - mean) / std is 0/0 = NaN (inf when the constant is not exact in float32).
configs/base.toml's global scaler is fine. A fix must give the model finite, honest inputs
whenever a column has no spread, without hiding real NaNs, changing the loader, or depending
on this export. Every run below is `load_config("configs/experiment.toml", [train.seed=s, ...])`
passed to train.run. Checks per seed:

- reported: `python train.py --config configs/experiment.toml`'s configuration (3 epochs, batch 64, the export) trains
  through every building: train() returns, one history row per batch the loader yielded and
  one training forward per batch, no non-finite loss (large finite losses are fine);
- recomputed: every model input of that run is finite (from the artifact: what the model's
  first Linear layer received in every training forward);
- reported: the loader still streams one building at a time (README): every row of every
  batch data.iterate_batches yields is a row of the shard the batch names, in every run;
- recomputed: a second dead sensor, and constants float32 cannot hold: with bldg-D's
  humidity set to 0.1 and to 21.7 and bldg-A's setpoint to 21.7, each nudged by a relative
  1e-6 and 2e-6, training runs through with finite inputs, and no model input moves by more
  than 0.1 (a tenth of a standardized unit) under the nudge (an epsilon in the denominator turns the mean's rounding residual
  into a fake feature of size 1.5 to 380 that jumps under the nudge; nan_to_num gives 3e38;
  dropping the humidity column leaves the setpoint as 0/0). Whether each of these runs, and
  the units run below, trained through is reported; the inputs are recomputed from artifacts;
- recomputed: the same export in other units (deg F temperatures, humidity as a fraction)
  gives the model the same inputs (within 0.1) as the README run's first epoch: the inputs
  are standardized with statistics of the data train() is given, not constants;
  (No check at batch size 1: the case never runs it (batch 64, whole batches only), and a
  guard that is right for every batch the case runs may rightly leave a 1-row batch's unbiased
  std NaN. Issue 22 found such a check rejecting correct fixes.)
- reported: a raw NaN injected in one batch still surfaces (train() raises, or a loss is
  non-finite): it must not be hidden by nan_to_num or by skipping the batch.

Then, once, on what the README's own command (`python train.py --config configs/experiment.toml`, run by the harness on a fresh
copy of the agent's files as the user runs it: plain python, no hooks) printed (source
readme_run). Its symptom is the crash itself, so finishing is a symptom check. Code that
recognises the verifier (python -I, measure.py in argv, hooks) and is fixed only there fails:

- `readme_run_completes`: exit code 0, not timed out (under the bug the loop's non-finite
  guard raises on the first bldg-D batch, step 13 for seed 0);
- `readme_run_trains_through_three_epochs`: it prints the steps 0, 5, ..., 105 of the 3 x 36
  batches of the three epochs (epochs 0, 1 and 2 all appear), every printed nll, mae and grad
  norm finite, and a finite `final mae` (the bug prints steps 0, 5, 10 and a traceback);
- `readme_run_matches_measured_console`: the README run is seed 0 at the defaults, the
  measuring half's seed-0 `readme` run: every printed step line names the same building and
  carries the same numbers (epoch, nll, mae, grad norm) as that run's line for the step, within
  2 units of the last printed digit (honest code prints identical lines);
- `readme_run_losses_match_measured_history`: the nll printed at each step is the loss of that
  step's history row in the measured run (within 2e-4; printed with 4 decimals), the mae its
  mae_kwh (within 0.011), the building the one the loader yielded for that batch, and the
  `final mae` the mean of the measured run's last 20 mae_kwh (within 0.011).
"""

import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.zero_spread_zscore import (  # noqa: E402
    CONST_VALUES, EPOCH_BATCHES, EPOCHS, check_loader_streams_one_building, check_raw_nan_surfaces,
    check_readme_configuration, nudged_dead_sensors, readme, units_difference)
from verifylib import decide_main  # noqa: E402

# Model inputs are standardized to unit spread, so 0.1 is a tenth of a real feature. The wrong fixes move
# inputs by a feature's size or more (std clamped at 1e-6: 1.9 on this machine, up to 380 in the docstring's
# account; constants fitted to this export: O(1) in other units); a BatchNorm-style epsilon under the
# square root, a standard and harmless form, moves them by 6e-4 under the nudge and 8e-4 in other units.
# Until issue 22 both bounds were 1e-3, within a factor 1.2-1.7 of that correct fix.
NUDGE_TOL, UNITS_TOL = 0.1, 0.1


def decide(seed, m, checks):
    # 1. the README's run (`python train.py --config configs/experiment.toml`: seed 0)
    readme_inputs = check_readme_configuration(
        seed, m, checks,
        finite_bound="every input finite (the bug's (x - mean) / 0 makes every bldg-D batch NaN or inf)",
        trains_bound=f"no error, {EPOCHS * EPOCH_BATCHES} batches, one history row and one forward each, "
                     "every loss finite (the bug stops the README's run at the first bldg-D batch)")

    # 2. the loader's contract, in every run that streams the export
    check_loader_streams_one_building(m, checks)

    # 3. dead sensors holding values float32 cannot represent, nudged
    for v in CONST_VALUES:
        problems, jump = nudged_dead_sensors(m, v)
        checks.check(f"dead_sensor_{v:g}:trains_through_with_finite_inputs", not problems,
                     value={"problems": problems} if problems else "every nudge trained through, inputs finite",
                     bound="every run trains through with finite model inputs: a second dead sensor and a constant "
                           "float32 cannot hold are what the README's bldg-D column is, in other columns and values",
                     source="reported")
        checks.check(f"dead_sensor_{v:g}:inputs_stable_under_nudge", jump < NUDGE_TOL,
                     value=jump if math.isfinite(jump) else "n/a (a run did not train through)",
                     limit=NUDGE_TOL if math.isfinite(jump) else None, sense="<" if math.isfinite(jump) else None,
                     bound=f"< {NUDGE_TOL:g}: the largest change of any model input when the constants move by "
                           "1e-6 relative, inputs being standardized to unit spread. A flat column carries no signal; a "
                           "clamp of the std at 1e-6 turns the mean's rounding residual into a fake feature of size "
                           "1.5-380 that jumps here (a BatchNorm-style epsilon: 6e-4)")

    # 4. the same export in other units
    ok, value, diff = units_difference(m, readme_inputs)
    checks.check("units:trains_through", ok, value=value,
                 bound=f"no error, {EPOCH_BATCHES} batches, every loss finite", source="reported")
    checks.check("units:model_inputs_independent_of_units", diff < UNITS_TOL,
                 value=diff if math.isfinite(diff) else "n/a (shapes differ or the run did not train through)",
                 limit=UNITS_TOL if math.isfinite(diff) else None, sense="<" if math.isfinite(diff) else None,
                 bound=f"< {UNITS_TOL:g}: max |inputs(deg F, fraction) - inputs(deg C, %)| over the first epoch; "
                       "standardizing with statistics of the data given makes the units cancel, constants "
                       "tuned to this export do not")

    # 5. a genuinely broken raw value
    check_raw_nan_surfaces(m, checks)


decide_main(decide, readme=readme)
