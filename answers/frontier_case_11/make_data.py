"""Regenerates cases/wip_frontier_case_11/data/*.csv (authoring only; the case ships the CSVs).

    python make_data.py OUT_DIR
"""

import csv
import math
import sys
from pathlib import Path

import numpy as np

DAYS = 35
SITES = {
    # name: (scale kWh, profile kind, zero share of idle hours)
    "hub-north": (42.0, "urban"),
    "hub-south": (35.0, "urban"),
    "motorway-a7": (58.0, "motorway"),
    "retail-park": (27.0, "retail"),
    "office-campus": (22.0, "office"),
    "depot-fleet": (64.0, "depot"),
}


def profile(kind, hour, weekday):
    weekend = weekday >= 5
    if kind == "urban":
        return 0.35 + 0.65 * math.exp(-((hour - 18) / 4.0) ** 2) + 0.3 * math.exp(-((hour - 9) / 3.0) ** 2)
    if kind == "motorway":
        return 0.25 + 0.75 * math.exp(-((hour - 14) / 5.0) ** 2) + (0.25 if weekend else 0.0)
    if kind == "retail":
        base = 0.15 + 0.85 * math.exp(-((hour - 13) / 3.5) ** 2)
        return base * (1.4 if weekday == 5 else 0.6 if weekday == 6 else 1.0)
    if kind == "office":
        return (0.12 + 0.9 * math.exp(-((hour - 10) / 3.0) ** 2)) * (0.3 if weekend else 1.0)
    # depot: the fleet plugs in after the shift, weekday evenings and nights only
    charging = not weekend and (hour >= 18 or hour < 6)
    if not charging:
        return 0.0
    into = (hour - 18) % 24
    return 0.5 + 0.8 * math.exp(-((into - 2) / 2.5) ** 2)


def main(out):
    rng = np.random.default_rng(20261205)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    hours = DAYS * 24
    temp = 8 + 6 * np.sin(2 * np.pi * (np.arange(hours) - 15) / 24) + np.cumsum(rng.normal(0, 0.4, hours)) * 0.3
    for name, (scale, kind) in SITES.items():
        series = np.zeros(hours + 1)
        for t in range(hours + 1):
            hour, weekday = t % 24, (t // 24) % 7
            cold = 1.0 + 0.02 * max(0.0, 10.0 - temp[min(t, hours - 1)])
            mean = scale * profile(kind, hour, weekday) * cold
            series[t] = 0.0 if mean == 0.0 else rng.gamma(6.0, mean / 6.0)
        price = 28 + 9 * np.sin(2 * np.pi * (np.arange(hours) - 17) / 24) + rng.normal(0, 1.5, hours)
        plugs = np.where(rng.random(hours) < 0.04, 6, 8) if kind != "depot" else np.full(hours, 12)
        with open(out / f"{name}.csv", "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["hour_index", "hour", "weekday", "outdoor_temp_c", "price_ct_kwh", "plugs_online",
                        "lag_kwh", "lag24_kwh", "next_kwh"])
            for t in range(24, hours):
                w.writerow([t, t % 24, (t // 24) % 7, f"{temp[t]:.1f}", f"{price[t]:.1f}", int(plugs[t]),
                            f"{series[t]:.2f}", f"{series[t - 23]:.2f}", f"{series[t + 1]:.2f}"])


if __name__ == "__main__":
    main(sys.argv[1])
