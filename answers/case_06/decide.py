"""case_06, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-c06-e9673773c4ac52b2

The bug: features.standardize z-scores each batch with its own mean and std, batches never
mix buildings, and bldg-D has no humidity reading (0.0 on every row), so that column's batch
std is 0 and (x - mean) / std is 0/0 = NaN (inf when the constant is not exact in float32).
A fix must give the model finite, honest inputs whenever a column has no spread, without
hiding real NaNs, changing the loader, or depending on this export. Checks per seed:

- reported: `python train.py`'s configuration (3 epochs, batch 64, the export) trains
  through every building: train() returns, one history row per batch the loader yielded and
  one training forward per batch, no non-finite loss (large finite losses are fine);
- recomputed: every model input of that run is finite (from the artifact: what the model's
  first Linear layer received in every training forward);
- reported: the loader still streams one building at a time (README): every row of every
  batch data.iterate_batches yields is a row of the shard the batch names, in every run;
- recomputed: a second dead sensor, and constants float32 cannot hold: with bldg-D's
  humidity set to 0.1 and to 21.7 and bldg-A's setpoint to 21.7, each nudged by a relative
  1e-6 and 2e-6, training runs through with finite inputs, and no model input moves by more
  than 1e-3 under the nudge (an epsilon in the denominator turns the mean's rounding residual
  into a fake feature of size 1.5 to 380 that jumps under the nudge; nan_to_num gives 3e38;
  dropping the humidity column leaves the setpoint as 0/0). Whether each of these runs, and
  the units run below, trained through is reported; the inputs are recomputed from artifacts;
- recomputed: the same export in other units (deg F temperatures, humidity as a fraction)
  gives the model the same inputs (within 1e-3) as the README run's first epoch: the inputs
  are standardized with statistics of the data train() is given, not constants;
- reported: the README's command at another seed whose first batch is bldg-D's (seeds 7,
  17, 22 for the verifier's seeds 0, 1, 2; one epoch) trains through, and (recomputed) its
  model inputs are finite: statistics frozen from whatever batch comes first are 0/0 there;
- no check runs a batch size the case never uses: the loader yields only full batches of
  batch_size rows (64 in the README; a building's leftover rows are dropped), so a batch of
  one row, whose unbiased std is NaN, never occurs (issue 22 dropped the batch_size=1 run that
  rejected std == 0 guards, right for every batch the case runs);
- reported: a raw NaN injected in one batch still surfaces (train() raises, or a loss is
  non-finite): it must not be hidden by nan_to_num or by skipping the batch.

Then, once, on what the README's own command (`python train.py`, run by the harness on a fresh
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

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.zero_spread_zscore import (  # noqa: E402
    CONST_VALUES, EPOCH_BATCHES, EPOCHS, all_finite, check_loader_streams_one_building, check_raw_nan_surfaces,
    check_readme_configuration, inputs, nudged_dead_sensors, readme, trained_through, units_difference)
from verifylib import decide_main  # noqa: E402

NUDGE_TOL, UNITS_TOL = 1e-3, 1e-3


def decide(seed, m, checks):
    # 1. the README's run
    readme_inputs = check_readme_configuration(
        seed, m, checks, finite_bound="every input finite",
        trains_bound=f"no error, {EPOCHS * EPOCH_BATCHES} batches, one history row and one forward each, "
                     "every loss finite")

    # 2. the loader's contract, in every run that streams the export
    check_loader_streams_one_building(m, checks, extra_tags=("dead_first",))

    # 3. dead sensors holding values float32 cannot represent, nudged
    for v in CONST_VALUES:
        problems, jump = nudged_dead_sensors(m, v)
        checks.check(f"dead_sensor_{v:g}:finite_and_stable_under_nudge", not problems and jump < NUDGE_TOL,
                     value=jump, limit=NUDGE_TOL, sense="<", reason=str(problems)[:500] if problems else None,
                     bound=f"< {NUDGE_TOL:g}: the largest change of any model input when the dead sensors' constants "
                           "move by a relative 1e-6 and 2e-6 (the runs must also train through with finite inputs; "
                           "no value when not). A column with no spread must give a fixed input; dividing the mean's "
                           "float32 rounding residual by a zero or epsilon spread gives a fake feature that jumps")

    # 4. the same export in other units
    ok, value, diff = units_difference(m, readme_inputs)
    checks.check("units:model_inputs_independent_of_units", ok and diff < UNITS_TOL,
                 value=diff, limit=UNITS_TOL, sense="<", reason=None if ok else str(value)[:500],
                 bound=f"< {UNITS_TOL:g}: the largest |model input (deg F, humidity fraction) - model input (deg C, "
                       "%)| over the first epoch (no value when the run does not train through). Standardizing with "
                       "statistics of the data given keeps it ~0; constants fitted to this export move it")

    # 5. the README's command at a seed whose first batch is the dead sensor's building
    ok, value = trained_through(m, "dead_first", EPOCH_BATCHES)
    checks.check("dead_first:trains_through", ok, value=value, source="reported",
                 bound="no error, one history row and one forward per batch, every loss finite, on the seed whose "
                       "first batch is bldg-D's (no spread in its humidity column): the run the bug crashes at once")
    xs = inputs(m, "dead_first", m.number("dead_first:forwards"))
    checks.check("dead_first:model_inputs_finite", all_finite(xs), value={"forwards": len(xs)},
                 bound="every model input finite on that seed's epoch")

    # 6. a genuinely broken raw value
    check_raw_nan_surfaces(m, checks)


decide_main(decide, readme=readme)
