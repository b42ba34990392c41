"""How cases/wip_frontier_case_05/data/*.csv were generated (hidden half; not shipped to the agent).

Six docking stations of a city bike-share scheme, 10 weeks of hourly pickups from Monday 2026-03-02.
Every station's rate is base x hourly profile (weekday or weekend) x weather factor, pickups are
Poisson. harbour-front serves the ferry pier: its weekday commute peaks (07-09 and 17-18) are two to
three times any other station's peak, and rain cuts its pickups harder than elsewhere (x0.35 against
x0.55: its commuters take the ferry). The ferry company's new early sailing (from Monday 27 April, the
first held-out week) adds 30% to harbour-front's weekday 06-09 pickups: the real, partial excuse.
uni-library is closed for maintenance in week 6 (168 zero hours: the real, harmless anomaly the
checker warns about).

Station exports are on the docks' local wall clock (Europe/Copenhagen, 24 rows a day); the weather is
the city gauge's feed, one file in UTC (`data/weather/city_gauge.csv`, `time_utc, temp_c, rain_mm`),
written from the local-hour weather the pickups were drawn with: local hour minus 1 h before the clocks
change on 29 March (02:00 -> 03:00), minus 2 h after; the nonexistent local 02:00 of 29 March has no
feed row, and 9 random gauge hours are missing (the loader interpolates short gaps).

    python answers/wip_frontier_case_05/make_data.py
"""

import csv
import math
from pathlib import Path

import numpy as np

OUT = Path(__import__("os").environ.get("OUT", Path(__file__).resolve().parents[2] / "cases" / "wip_frontier_case_05" / "data"))
WEEKS = 10
HOLIDAYS = {(2026, 4, 3), (2026, 4, 6)}  # Good Friday, Easter Monday


def bump(h, centre, width):
    return math.exp(-0.5 * ((h - centre) / width) ** 2)


def profile(kind, h, weekend):
    if kind == "commute":
        if weekend:
            return 0.15 + 0.55 * bump(h, 13, 3.0)
        return 0.08 + 1.0 * bump(h, 8, 0.9) + 0.8 * bump(h, 17.5, 1.1) + 0.25 * bump(h, 12.5, 1.5)
    if kind == "campus":
        if weekend:
            return 0.05 + 0.25 * bump(h, 14, 3.0)
        return 0.05 + 0.6 * bump(h, 10, 1.5) + 0.7 * bump(h, 16, 2.0) + 0.3 * bump(h, 21, 1.5)
    if kind == "leisure":
        if weekend:
            return 0.1 + 1.0 * bump(h, 14.5, 2.5)
        return 0.08 + 0.35 * bump(h, 17.5, 2.0)
    if kind == "mixed":
        if weekend:
            return 0.1 + 0.6 * bump(h, 13, 3.0) + 0.3 * bump(h, 20, 2.0)
        return 0.08 + 0.5 * bump(h, 8.5, 1.2) + 0.4 * bump(h, 13, 2.0) + 0.6 * bump(h, 18, 1.5)
    raise ValueError(kind)


STATIONS = {  # name: (kind, peak pickups per hour)
    "harbour-front": ("commute", 64.0),
    "uni-library": ("campus", 16.0),
    "old-town": ("mixed", 18.0),
    "station-square": ("commute", 22.0),
    "riverside-park": ("leisure", 20.0),
    "tech-park": ("commute", 14.0),
}


RAIN_FACTOR = {"harbour-front": 0.35}
FERRY_FROM = 8 * 168  # 2026-04-27 00:00 local
DST_FROM = 27 * 24 + 2  # 2026-03-29 02:00 local: clocks go to 03:00


def weather(rng, n_hours):
    day = np.arange(n_hours) / 24.0
    temp = 6.0 + 0.12 * day + 5.0 * np.sin(2 * np.pi * (np.arange(n_hours) % 24 - 9) / 24)
    temp = temp + np.repeat(rng.normal(0, 2.5, n_hours // 24 + 1), 24)[:n_hours]
    rain = np.zeros(n_hours)
    wet = np.repeat(rng.random(n_hours // 24 + 1) < 0.3, 24)[:n_hours] & (rng.random(n_hours) < 0.45)
    rain[wet] = rng.gamma(1.2, 1.5, wet.sum())
    return np.round(temp, 1), np.round(rain, 1)


def main():
    rng = np.random.default_rng(20260302)
    n = WEEKS * 7 * 24
    temp, rain = weather(rng, n)
    start = np.datetime64("2026-03-02T00:00")
    OUT.mkdir(parents=True, exist_ok=True)
    for name, (kind, peak) in STATIONS.items():
        rows = []
        for i in range(n):
            ts = start + np.timedelta64(i, "h")
            d = ts.astype("datetime64[D]").astype(object)
            h = i % 24
            dow = (i // 24) % 7
            holiday = int((d.year, d.month, d.day) in HOLIDAYS)
            weekend = dow >= 5 or holiday
            w = math.exp(0.03 * (temp[i] - 10.0)) * (RAIN_FACTOR.get(name, 0.55) if rain[i] > 0.5 else 1.0)
            rate = peak * profile(kind, h, weekend) * w
            if name == "harbour-front" and i >= FERRY_FROM and not weekend and 6 <= h <= 9:
                rate *= 1.3
            y = int(rng.poisson(rate))
            if name == "uni-library" and 5 * 168 <= i < 6 * 168:
                y = 0
            rows.append((str(ts).replace("T", " "), y, holiday))
        with open(OUT / f"{name}.csv", "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(["timestamp", "pickups", "holiday"])
            wr.writerows(rows)
    gap_rng = np.random.default_rng(7)
    missing = set(gap_rng.choice(np.arange(24, n - 24), size=9, replace=False).tolist())
    feed = []
    for i in range(n):
        if i == DST_FROM or i in missing:
            continue
        utc = start + np.timedelta64(i - (1 if i < DST_FROM else 2), "h")
        feed.append((str(utc).replace("T", " "), temp[i], rain[i]))
    for k in range(1, 3):  # the gauge file runs to midnight UTC
        feed.append((str(utc + np.timedelta64(k, "h")).replace("T", " "), round(float(temp[-1]) - 0.3 * k, 1), 0.0))
    (OUT / "weather").mkdir(exist_ok=True)
    with open(OUT / "weather" / "city_gauge.csv", "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["time_utc", "temp_c", "rain_mm"])
        wr.writerows(feed)


if __name__ == "__main__":
    main()
