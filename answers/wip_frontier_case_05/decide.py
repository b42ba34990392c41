"""wip_frontier_case_05, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-wip_frontier_case_05-dcfb26e2ad9b0587

Two independent defects. Layer A (optimizer/callbacks): optim.build_scheduler builds a LambdaLR whose
lambda is written in epochs (1 warmup epoch, cosine to 0.05 of the base rate at epoch 12), and the
LRScheduler callback steps it in on_step_end, after every optimizer step: the whole schedule is spent in
the first 12 of 1,200 batches and the run trains at the floor rate. Layer B (sampling.py): the epoch draw
is meant to give every station the same share (row weight 1 / rows of its station), but the per-station
counts come from `value_counts()` (ordered by count, largest first) and are looked up by station code
with `.to_numpy()[station]`: the weights are permuted. harbour-front (code 0, the dock that opened last,
336 training hours) gets the weight of the largest station and is drawn 0.18x its balanced share;
uni-library (code 5) gets the weight of the smallest and fills ~half of every epoch. Every run is the
README's command at train.seed = s. Checks per seed:

- reported `every_batch_steps`: >= 1,200 optimizer steps;
- recomputed `schedule_spans_the_run`: lr at the middle optimizer step >= 0.3 of the run's peak;
- recomputed `schedule_decays_by_the_end`: last step's lr <= 0.2 of the peak (rejects a constant lr or a
  raised floor);
- recomputed `every_station_drawn_evenly`: the station codes every embedding module receives in training
  mode (a global forward pre-hook), per code, over the run: share x number of stations within
  [0.6, 1.6] for every station (balanced ~1.0; permuted weights 0.18..2.9; uniform rows 0.32..1.26);
- reported `heldout_mae` <= 2.7 (broken 4.10-4.35, A only 2.76-2.88, gold 2.49-2.53);
- reported `late_station_mae`: harbour-front's held-out MAE <= 5.3 (A only 5.90-6.69, gold 4.54-4.78);
- reported `peak_station_rush_bias`: harbour-front's rush-hour bias >= -10.2 (A only -11.6 to -15.5,
  gold -7.2 to -8.8).

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
from families.schedule_unit import decide_schedule_and_draws, readme_checks  # noqa: E402
from verifylib import decide_main  # noqa: E402

SETTINGS = {
    "steps": 1200,  # 12 epochs x ceil(6384 / 64)
    "mid_ratio": 0.3, "end_ratio": 0.2,
    "share_min": 0.6, "share_max": 1.6,
    "mae_max": 2.7, "station_mae_max": 5.3, "rush_min": -10.2,
    "peak_station": "harbour-front",
}
KEPT = {}


def decide(seed, m, checks):
    keep = {}
    decide_schedule_and_draws(m, checks, SETTINGS, keep)
    KEPT[seed] = keep.get("report")


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS, KEPT.get(0))


decide_main(decide, readme=readme)
