"""Feature encoding: calendar harmonics, weekday and holiday flags, weather, station index."""

from dataclasses import dataclass

import numpy as np


@dataclass
class Table:
    x: np.ndarray          # float32 [n, d] numeric features
    station: np.ndarray    # int64 [n] station index
    y: np.ndarray          # float64 [n] pickups
    hour: np.ndarray       # int64 [n] hour of day
    weekday: np.ndarray    # int64 [n] 0 = Monday
    names: list            # station names, by index

    def __len__(self):
        return len(self.y)


def calendar(time, holiday, harmonics):
    hours = (time - time.astype("datetime64[D]")).astype(np.int64)
    days = time.astype("datetime64[D]").astype(np.int64)
    weekday = (days + 3) % 7  # 1970-01-01 was a Thursday
    cols = []
    for k in range(1, harmonics + 1):
        angle = 2 * np.pi * k * hours / 24.0
        cols += [np.sin(angle), np.cos(angle)]
    off = ((weekday >= 5) | (holiday > 0)).astype(np.float64)
    cols += [off, holiday.astype(np.float64)]
    # the commute shape differs between working days and days off: give the model both views
    for k in range(1, harmonics + 1):
        angle = 2 * np.pi * k * hours / 24.0
        cols += [off * np.sin(angle), off * np.cos(angle)]
    return np.stack(cols, axis=1), hours, weekday


def weather(st):
    return np.stack([(st.temp_c - 10.0) / 10.0, np.log1p(st.rain_mm)], axis=1)


def build_table(stations, names, harmonics=2, use_weather=True):
    index = {n: i for i, n in enumerate(names)}
    xs, sidx, ys, hours, days = [], [], [], [], []
    for st in stations:
        cal, hour, weekday = calendar(st.time, st.holiday, harmonics)
        parts = [cal, weather(st)] if use_weather else [cal]
        xs.append(np.concatenate(parts, axis=1))
        sidx.append(np.full(len(st), index[st.name], dtype=np.int64))
        ys.append(st.pickups)
        hours.append(hour)
        days.append(weekday)
    return Table(np.concatenate(xs).astype(np.float32), np.concatenate(sidx), np.concatenate(ys),
                 np.concatenate(hours), np.concatenate(days), list(names))
