"""frontier_case_05, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_05-dcfb26e2ad9b0587

Two independent defects. Layer A (optimizer/callbacks): optim.build_scheduler builds a LambdaLR whose
lambda is written in epochs (1 warmup epoch, cosine to 0.1 of the base rate at epoch 12), and the
LRScheduler callback steps it in on_step_end, after every optimizer step: the whole schedule is spent in
the first 12 of 1,512 batches and the run trains at the floor rate. Layer B (preprocessing):
preprocess.TargetScaler maps the targets to [0, 1] by the pooled 98th percentile of the training counts
(44 pickups) and clips, so every training hour above it, almost all of them harbour-front's weekday rush
hours, reaches the loss as 44. Every run is the README's command at train.seed = s. Checks per seed:

- reported `every_batch_steps`: >= 1,512 optimizer steps;
- recomputed `schedule_spans_the_run`: the lr at the middle optimizer step is >= 0.3 of the run's peak lr
  (the configured cosine, per epoch or per step, gives ~0.55; the broken run sits at its floor, 0.1);
- recomputed `schedule_decays_by_the_end`: the last step's lr is <= 0.2 of the peak (rejects switching
  the schedule off or raising its floor);
- reported `training_targets_keep_every_count`: >= 81 distinct target values reach the loss (the training
  rows hold 81 distinct counts; a cap at any quantile below 1 merges those above it);
- reported `heldout_mae`: all-stations held-out MAE <= 2.75 bikes/h (broken 3.27-3.38, fixed 2.29-2.61);
- reported `peak_station_rush_bias`: harbour-front's weekday rush-hour bias >= -12 bikes/h (cut targets:
  -17 to -27; uncut: -4 to -9).

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
    "distinct_counts": 81,  # distinct pickup counts among the 8,064 training rows (make_data.py)
    "mae_max": 2.75, "rush_min": -12.0,
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
