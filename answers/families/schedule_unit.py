"""Bug family: a learning-rate schedule written in one unit (epochs) and stepped in another (batches),
behind a weather join that moves a UTC feed onto local time with the clock offset of the feed's first
hour, so after the clocks change every station hour gets the reading of the hour before
(frontier_case_05).

Measuring body (`run_recorded`): runs the agent's `load_config(CONFIG, [train.seed=s])` and `run(cfg)`
with a global optimizer step hook that records the learning rate of every optimizer step, and the
held-out report; `weather_alignment` then loads the stations through the agent's `data.load_stations`
(when it still exists with that shape) and compares the rain attached to every station hour with the
gauge's reading for that hour, converted hour by hour with the city's time zone by this module.
Deciding body (`decide_schedule_and_weather`, `readme_checks`): bounds on the schedule's shape over the
run, on the share of rain readings attached to the right hour, and on the held-out report.
"""

import math
import re


def run_recorded(rec, seed, load_config, run_fn, config_path):
    from torch.optim.optimizer import register_optimizer_step_post_hook

    lrs = []

    def on_step(optimizer, args, kwargs):
        lrs.append(float(optimizer.param_groups[0]["lr"]))

    handle = register_optimizer_step_post_hook(on_step)
    try:
        cfg = load_config(config_path, [f"train.seed={seed}"])
        out = run_fn(cfg)
    finally:
        handle.remove()
    report = out["report"] if isinstance(out, dict) else getattr(out, "report")
    rec.put("lrs", lrs)
    rec.put("report", {k: {m: float(v) for m, v in r.items()} for k, r in report.items()})
    rec.put("weather_alignment", weather_alignment(cfg))


def _gauge_truth(path, tz):
    """Rain of the gauge per local wall-clock hour (ISO string), converted hour by hour."""
    import csv
    from datetime import datetime, timezone
    from zoneinfo import ZoneInfo

    zone, out = ZoneInfo(tz), {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            utc = datetime.fromisoformat(row["time_utc"].replace(" ", "T")).replace(tzinfo=timezone.utc)
            local = utc.astimezone(zone).replace(tzinfo=None)
            out[local.strftime("%Y-%m-%dT%H")] = float(row["rain_mm"])
            out["utc:" + utc.strftime("%Y-%m-%dT%H")] = float(row["rain_mm"])
    return out


def weather_alignment(cfg, tz="Europe/Copenhagen", feed="weather/city_gauge.csv"):
    """Share of the rainy station hours whose attached rain equals the gauge's reading at that hour
    (station times read as local, or as UTC if the agent moved the exports to UTC); None when the
    agent's loader no longer has the shape this check needs (the outcome checks decide then)."""
    import sys
    from pathlib import Path

    try:
        data = sys.modules.get("data")
        stations = data.load_stations(cfg.data.data_dir, None)
        truth = _gauge_truth(Path(cfg.data.data_dir) / feed, tz)
        best = 0.0
        for prefix in ("", "utc:"):
            hit = total = 0
            for st in stations:
                for t, r in zip(st.time, st.rain_mm):
                    key = prefix + str(t)[:13]
                    if key not in truth:
                        continue
                    want = truth[key]
                    if want > 0.5 or float(r) > 0.5:
                        total += 1
                        hit += abs(float(r) - want) <= 0.05
            if total:
                best = max(best, hit / total)
        return round(best, 4)
    except Exception:
        return None


def _lr_shape(lrs):
    peak = max(lrs)
    mid = lrs[len(lrs) // 2]
    return peak, mid / peak, lrs[-1] / peak


def decide_schedule_and_weather(m, checks, s, keep):
    lrs = m.value("lrs", list)
    if not lrs or not all(isinstance(v, (int, float)) and math.isfinite(v) and v >= 0 for v in lrs):
        checks.check("lr_recorded", False, value=len(lrs), bound="finite lr at every optimizer step")
        return
    checks.check("every_batch_steps", len(lrs) >= s["steps"], value=len(lrs),
                 bound=f">= {s['steps']} optimizer steps (12 epochs x 126 batches)", source="reported",
                 limit=s["steps"] - 0.5, sense=">")
    peak, mid, end = _lr_shape(lrs)
    checks.check("schedule_spans_the_run", mid >= s["mid_ratio"], value=round(mid, 4),
                 bound=f">= {s['mid_ratio']} (lr halfway through the optimizer steps over the run's peak lr; "
                       "the cosine gives ~0.5, a schedule spent early sits at its floor 0.05)",
                 source="recomputed", limit=s["mid_ratio"], sense=">")
    checks.check("schedule_decays_by_the_end", end <= s["end_ratio"], value=round(end, 4),
                 bound=f"<= {s['end_ratio']} (last step's lr over the peak: the configured cosine ends at "
                       "min_lr_ratio 0.05; a constant or half-height floor does not decay)",
                 source="recomputed", limit=s["end_ratio"], sense="<")
    align = m.values.get("weather_alignment")
    if align is not None:
        ok = isinstance(align, (int, float)) and not isinstance(align, bool) and align >= s["align_min"]
        checks.check("rain_on_the_right_hour", ok, value=align,
                     bound=f">= {s['align_min']} of the rainy station hours carry the gauge's reading for that "
                           "local hour (the first hour's offset for the whole feed: about 0.40; hour-by-hour "
                           "conversion: 1.0)", source="reported", limit=s["align_min"], sense=">")
    report = m.value("report", dict)
    overall = float(report["all"]["mae"])
    peak = report[s["peak_station"]]
    keep["report"] = report
    checks.check("heldout_mae", overall <= s["mae_max"], value=round(overall, 3),
                 bound=f"<= {s['mae_max']} bikes/h over all stations (broken 3.99-4.20; the schedule "
                       "fixed alone: 2.75-2.86; both fixed: 2.39-2.46, schedule rebuilt in steps: up to 2.52)", source="reported", limit=s["mae_max"],
                 sense="<")
    checks.check("peak_station_mae", float(peak["mae"]) <= s["station_mae_max"], value=round(float(peak["mae"]), 3),
                 bound=f"<= {s['station_mae_max']} bikes/h held-out MAE at {s['peak_station']} (schedule fixed "
                       "alone: 6.10-6.58; both fixed: 4.67-4.93, schedule in steps: up to 5.11)", source="reported", limit=s["station_mae_max"],
                 sense="<")


ROW = re.compile(r"^\s+(all stations|[a-z][a-z0-9-]+)\s+(-?\d+\.\d+)\s+(-?\d+\.\d+)%\s+([-+]\d+\.\d+)\s+([-+]\d+\.\d+)\s*$")


def printed_report(stdout):
    rows = {}
    for line in stdout.splitlines():
        mt = ROW.match(line)
        if mt:
            name = "all" if mt.group(1) == "all stations" else mt.group(1)
            rows[name] = {"mae": float(mt.group(2)), "wape": float(mt.group(3)) / 100,
                          "bias": float(mt.group(4)), "rush_bias": float(mt.group(5))}
    return rows


def readme_checks(run, measured, checks, s, seed_report):
    ok = run.get("exit_code") == 0 and not run.get("timed_out")
    checks.check("readme_run_exit_zero", ok, value=run.get("exit_code"), bound="exit 0", source="readme_run")
    rows = printed_report(run.get("stdout", ""))
    if "all" not in rows or s["peak_station"] not in rows:
        checks.check("readme_run_prints_report", False, value=len(rows), bound="the held-out table",
                     source="readme_run")
        return
    overall = rows["all"]["mae"]
    checks.check("readme_run_heldout_mae", overall <= s["mae_max"], value=overall, bound=f"<= {s['mae_max']}",
                 source="readme_run", limit=s["mae_max"], sense="<")
    st_mae = rows[s["peak_station"]]["mae"]
    checks.check("readme_run_peak_station_mae", st_mae <= s["station_mae_max"], value=st_mae,
                 bound=f"<= {s['station_mae_max']}", source="readme_run", limit=s["station_mae_max"], sense="<")
    if seed_report is None:
        checks.check("readme_run_matches_measured_report", False, value="seed 0 not decided",
                     bound="printed table equals the measured seed-0 report", source="readme_run")
        return
    worst = 0.0
    for name, r in rows.items():
        for key in ("mae", "bias", "rush_bias"):
            worst = max(worst, abs(r[key] - float(seed_report[name][key])))
    checks.check("readme_run_matches_measured_report", worst <= 0.02, value=round(worst, 4),
                 bound="<= 0.02 (every printed mae, bias, rush-hour bias equals the measured seed-0 run)",
                 source="readme_run", limit=0.02, sense="<")
