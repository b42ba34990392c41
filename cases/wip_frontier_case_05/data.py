"""Station exports and the city weather feed, joined into one hourly series per docking station.

Each station export has `timestamp, pickups, holiday`, one row per hour on the dock's local clock, in
time order. The weather comes from the city's rain gauge (`weather/city_gauge.csv`: `time_utc, temp_c,
rain_mm`, hourly, in UTC) and is attached to every station hour; short gaps in the gauge are filled
by linear interpolation. The last `holdout_weeks` weeks of every station are held out for evaluation;
everything before them is training data.
"""

import csv
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np

COLUMNS = ("pickups", "holiday")
WEATHER_FILE = Path("weather") / "city_gauge.csv"
CITY_TZ = "Europe/Copenhagen"
MAX_FILL_HOURS = 3
HOURS_PER_WEEK = 168


@dataclass
class Station:
    name: str
    time: np.ndarray        # datetime64[h]
    pickups: np.ndarray     # float64, bikes taken out in the hour
    temp_c: np.ndarray
    rain_mm: np.ndarray
    holiday: np.ndarray     # 0/1

    def __len__(self):
        return len(self.pickups)

    def slice(self, start, stop):
        return Station(self.name, self.time[start:stop], self.pickups[start:stop],
                       self.temp_c[start:stop], self.rain_mm[start:stop], self.holiday[start:stop])


def _read_csv(path, time_col, cols):
    times, out = [], {c: [] for c in cols}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            times.append(row[time_col].replace(" ", "T"))
            for c in cols:
                out[c].append(float(row[c]))
    return np.array(times, dtype="datetime64[h]"), {c: np.asarray(v, dtype=np.float64) for c, v in out.items()}


def utc_offset(when, tz=CITY_TZ):
    """Offset of the city's clock from UTC at the UTC hour `when`, as a numpy timedelta."""
    moment = datetime.fromisoformat(str(when)).replace(tzinfo=timezone.utc)
    return np.timedelta64(int(moment.astimezone(ZoneInfo(tz)).utcoffset().total_seconds() // 3600), "h")


@dataclass
class Weather:
    time: np.ndarray        # datetime64[h], local clock
    temp_c: np.ndarray
    rain_mm: np.ndarray


def read_weather(path, tz=CITY_TZ):
    """The gauge feed, moved from UTC onto the city's local clock and sorted by time."""
    utc, cols = _read_csv(path, "time_utc", ("temp_c", "rain_mm"))
    if len(utc) == 0:
        raise ValueError(f"{path}: empty weather feed")
    local = utc + np.array([utc_offset(t, tz) for t in utc])
    order = np.argsort(local, kind="stable")
    return Weather(local[order], cols["temp_c"][order], cols["rain_mm"][order])


def weather_at(weather, time, max_fill=MAX_FILL_HOURS):
    """Temperature and rain at the hours `time`: the gauge's reading at that hour, or linear
    interpolation over a gap of at most `max_fill` hours."""
    t = weather.time.astype(np.int64)
    q = np.asarray(time).astype(np.int64)
    if np.any(q < t[0]) or np.any(q > t[-1]):
        raise ValueError("weather feed does not cover the exports")
    idx = np.searchsorted(t, q)
    exact = t[np.minimum(idx, len(t) - 1)] == q
    right = np.clip(idx, 1, len(t) - 1)
    if np.any(~exact & (t[right] - t[right - 1] - 1 > max_fill)):
        raise ValueError(f"weather feed has a gap longer than {max_fill} hours")
    temp = np.interp(q, t, weather.temp_c)
    rain = np.interp(q, t, weather.rain_mm)
    return np.round(temp, 2), np.round(rain, 2)


def read_station(path, weather):
    path = Path(path)
    time, cols = _read_csv(path, "timestamp", COLUMNS)
    temp, rain = weather_at(weather, time)
    return Station(path.stem, time, cols["pickups"], temp, rain, cols["holiday"])


def load_stations(data_dir, names=None):
    files = sorted(Path(data_dir).glob("*.csv"))
    if names:
        by_name = {f.stem: f for f in files}
        missing = [n for n in names if n not in by_name]
        if missing:
            raise FileNotFoundError(f"no export for station(s) {missing} in {data_dir}")
        files = [by_name[n] for n in names]
    if not files:
        raise FileNotFoundError(f"no station exports in {data_dir}")
    weather = read_weather(Path(data_dir) / WEATHER_FILE)
    return [read_station(f, weather) for f in files]


def split_holdout(stations, holdout_weeks):
    """Time split: the last `holdout_weeks` weeks of each station are the held-out part."""
    train, held = [], []
    for st in stations:
        cut = len(st) - holdout_weeks * HOURS_PER_WEEK
        if cut <= 0:
            raise ValueError(f"{st.name}: {len(st)} hours, cannot hold out {holdout_weeks} weeks")
        train.append(st.slice(0, cut))
        held.append(st.slice(cut, len(st)))
    return train, held
