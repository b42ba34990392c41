"""frontier_case_05, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_05-dcfb26e2ad9b0587

Two independent defects. Layer A (optimizer/callbacks): optim.build_scheduler builds a LambdaLR whose
lambda is written in epochs (1 warmup epoch, cosine to 0.1 of the base rate at epoch 12), and the
LRScheduler callback steps it in on_step_end, after every optimizer step: the whole schedule is spent in
the first 12 of 1,512 batches and the run trains at the floor rate. Layer B (training objective):
config.TrainConfig.loss defaults to "mae", so the trainer minimizes the absolute error of the scaled
targets; its gradient on a prediction is the sign of the error, so harbour-front's weekday rush hours
(the few rows with errors several times any other station's) pull no harder than any other row and stay
under-fitted. Every run is the README's command at train.seed = s. Checks per seed:

- reported `every_batch_steps`: >= 1,512 optimizer steps;
- recomputed `schedule_spans_the_run`: the lr at the middle optimizer step is >= 0.3 of the run's peak lr
  (the configured cosine, per epoch or per step, gives ~0.55; the broken run sits at its floor, 0.1);
- recomputed `schedule_decays_by_the_end`: the last step's lr is <= 0.2 of the peak (rejects switching
  the schedule off or raising its floor);
- recomputed `objective_pulls_large_errors`: on every 10th training call of a torch regression loss, the
  loss's gradient on the predictions is recomputed on detached copies; (mean |grad| of the batch's
  largest-residual quarter / that of its smallest) over (the same ratio of |residual|), median over the
  samples, >= 0.5 (squared error 1.0; absolute error, or a Huber loss with a delta below the typical
  error, ~0.1-0.2). Skipped (passes) when no torch loss is called; the outcome bounds then decide;
- reported `heldout_mae`: all-stations held-out MAE <= 2.75 bikes/h (broken 3.40-3.48, A fixed 2.33-2.57);
- reported `peak_station_rush_bias`: harbour-front's weekday rush-hour bias >= -7 bikes/h (absolute
  error with the schedule fixed: -8.1 to -13.2; squared error: -4.2 to -5.7).

Then, on what the README's own command printed (source readme_run): `readme_run_exit_zero`,
`readme_run_heldout_mae` and `readme_run_peak_station_rush_bias` (the same bounds on the printed table),
and `readme_run_matches_measured_report` (the printed table equals the seed-0 run's report within 0.02).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.schedule_unit import decide_schedule_and_targets, readme_checks  # noqa: E402
from verifylib import decide_main  # noqa: E402

SETTINGS = {
    "steps": 1512,  # 12 epochs x ceil(8064 / 64)
    "mid_ratio": 0.3, "end_ratio": 0.2,
    "pull_min": 0.5,  # squared error 1.0, absolute error ~0.1
    "mae_max": 2.75, "rush_min": -7.0,
    "peak_station": "harbour-front",
}
KEPT = {}


def decide(seed, m, checks):
    keep = {}
    decide_schedule_and_targets(m, checks, SETTINGS, keep)
    KEPT[seed] = keep.get("report")


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS, KEPT.get(0))


decide_main(decide, readme=readme)
