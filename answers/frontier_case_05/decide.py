"""frontier_case_05, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_05-dcfb26e2ad9b0587

Two independent defects. Layer A (optimizer/callbacks): optim.build_scheduler builds a LambdaLR whose
lambda is written in epochs (1 warmup epoch, cosine to 0.05 of the base rate at epoch 12), and the
LRScheduler callback steps it in on_step_end, after every optimizer step: the whole schedule is spent in
the first 12 of 1,512 batches and the run trains at the floor rate. Layer B (data.py, the weather join):
read_weather moves the UTC gauge feed onto the city's clock with `utc_offset(utc[0])`, the offset of the
feed's first hour (+1 h, winter time), for every hour; from 29 March (summer time, +2 h) every station
hour gets the gauge reading of the hour before. Rain falls in showers of an hour or two, so from then on
(the last 4 of 8 training weeks and both held-out weeks) the rain the model sees is mostly not the
rain of that hour; harbour-front, where rain cuts pickups hardest, loses most. Every run is the README's
command at train.seed = s. Checks per seed:

- reported `every_batch_steps`: >= 1,512 optimizer steps;
- recomputed `schedule_spans_the_run`: lr at the middle optimizer step >= 0.3 of the run's peak;
- recomputed `schedule_decays_by_the_end`: last step's lr <= 0.2 of the peak (rejects a constant lr or a
  raised floor);
- reported `rain_on_the_right_hour` (when the agent's data.load_stations still returns stations with
  `time` and `rain_mm`): share of rainy station hours whose attached rain equals the gauge's reading for
  that hour, converted hour by hour with Europe/Copenhagen, >= 0.95 (broken 0.40, fixed 1.0);
- reported `heldout_mae` <= 2.65 (broken 3.99-4.20, A only 2.75-2.86, gold 2.39-2.46);
- reported `peak_station_mae`: harbour-front's held-out MAE <= 5.4 (A only 6.10-6.58, gold 4.67-4.93).

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
    "align_min": 0.95,
    "mae_max": 2.65, "station_mae_max": 5.4,
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
