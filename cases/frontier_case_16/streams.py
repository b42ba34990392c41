"""The hub's export: each home's hub writes one CSV per sensor kind (session, t, zone, state) under
streams/<home>/, merged into one event timeline per session.

An event's token is "sensor:zone:state" (e.g. "door:front:open"), at time t; the streams of one home share
their clock.
"""

import csv
from collections import defaultdict
from pathlib import Path

SENSORS = ("door", "fan", "light", "motion", "plug", "water")


def read_stream(path: Path) -> dict:
    """{session: [(t, token), ...]} for one sensor's CSV, in file order."""
    sensor = path.stem
    out = defaultdict(list)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            out[row["session"]].append((float(row["t"]), f"{sensor}:{row['zone']}:{row['state']}"))
    return out


def read_streams(root) -> dict:
    """{home: {sensor: {session: [(t, token), ...]}}} for every sensor file of every home under root/streams
    (a home's hub names its sessions by their start minute, so ids are only unique within a home)."""
    out = {}
    for home in sorted(p for p in (Path(root) / "streams").iterdir() if p.is_dir()):
        for sensor in SENSORS:
            path = home / f"{sensor}.csv"
            if path.exists():
                out.setdefault(home.name, {})[sensor] = read_stream(path)
    return out


def merge_streams(streams: dict, session: str, with_times=False) -> list:
    """One session's events from every sensor of one home ({sensor: {session: ...}}), in time order: tokens,
    or (t, token) pairs with `with_times`."""
    events = []
    for sensor in sorted(streams):
        events.extend(streams[sensor].get(session, ()))
    events.sort(key=lambda event: event[0])
    return events if with_times else [token for _, token in events]


def read_sessions(root) -> list:
    """The label file: [{session, home, split, activity, start}, ...] in file order (start: unix seconds)."""
    with open(Path(root) / "sessions.csv", newline="") as f:
        return list(csv.DictReader(f))
