"""wip_frontier_case_05, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-wip_frontier_case_05-dcfb26e2ad9b0587

Two independent defects. Layer A (optimizer/callbacks): optim.build_scheduler builds a LambdaLR whose
lambda is written in epochs (1 warmup epoch, cosine to 0.05 of the base rate at epoch 12), and the
LRScheduler callback steps it in on_step_end, after every optimizer step: the whole schedule is spent in
the first 12 of 1,512 batches and the run trains at the floor rate. Layer B (preprocess.row_weights, used by
train.prepare): the per-row loss weights by age (half-life 1.75 weeks) are computed once over the shared
training hours and expanded to one per station with `np.repeat` (hour-major: h0 s0..s5, h1 s0..s5, ...),
while features.build_table stores the rows station-major (all of harbour-front's hours, then old-town's,
...). Every row carries another row's weight: harbour-front's rows (first in the table) get the weights of
the oldest 1.3 weeks (about 0.1 of the mean), uni-library's the newest, and within a station the weights
barely change with age. harbour-front, the busiest station, is under-weighted by ~10x against the
last station. Every run is the README's
command at train.seed = s. Checks per seed:

- reported `every_batch_steps`: >= 1,512 optimizer steps;
- recomputed `schedule_spans_the_run`: lr at the middle optimizer step >= 0.3 of the run's peak;
- recomputed `schedule_decays_by_the_end`: last step's lr <= 0.2 of the peak (rejects a constant lr or a
  raised floor);
- reported `weights_equal_across_stations` and `weights_follow_each_rows_age` (when the agent's
  train.prepare still returns a table with `weight`): largest over smallest per-station mean weight <= 1.1
  (broken about 10) and, in every station, newest over oldest row's weight >= 10 (correct 23.7, broken
  about 1.7, weighting removed 1.0);
- reported `heldout_mae` <= 2.65 (broken 4.18-4.22, A only 2.56-2.80, gold 2.46-2.52);
- reported `peak_station_mae`: harbour-front's held-out MAE <= 5.6 (A only 5.38-6.47, 6.3 or more on seeds 0-1; gold 4.82-4.96, schedule in steps up to 5.32).

Then, on what the README's own command printed (source readme_run): `readme_run_exit_zero`,
`readme_run_heldout_mae` and `readme_run_peak_station_mae` (the same bounds on the printed table),
and `readme_run_matches_measured_report` (the printed table equals the seed-0 run's report within 0.02).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.schedule_unit import decide_schedule_and_weather, readme_checks  # noqa: E402
from verifylib import decide_main  # noqa: E402

SETTINGS = {
    "steps": 1512,  # 12 epochs x ceil(8064 / 64)
    "mid_ratio": 0.3, "end_ratio": 0.2,
    "weight_spread_max": 1.1, "age_ratio_min": 10.0,
    "mae_max": 2.65, "station_mae_max": 5.6,
    "peak_station": "harbour-front",
}
KEPT = {}


def decide(seed, m, checks):
    keep = {}
    decide_schedule_and_weather(m, checks, SETTINGS, keep)
    KEPT[seed] = keep.get("report")


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS, KEPT.get(0))


decide_main(decide, readme=readme)
