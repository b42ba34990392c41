"""How frontier_case_16's data were generated (never shipped to the agent). MLDB-CANARY-frontier_case_16-243164d4b50d189d

Smart-home activity sessions: each labelled session is a short run of sensor events, exported by the hub
as one CSV per sensor kind (door, fan, light, motion, plug, water; columns session,t,zone,state, t the hub's
clock in epoch seconds with tenths, about 1.7676e9-1.7702e9). Activities and their number of events:

  cooking 24-46, watching_tv 16-36, sleeping 12-28, showering 9-17, toilet 8-15, leaving 3-7, arriving 3-8

`leaving` and `arriving` are short (layer A's dilution hits them). Showering and toilet use the same
bathroom sensors with nearly the same token mix (fan in 45% / 25% of visits); what tells them apart is the
rhythm: a shower's events come every 20-75 s, a toilet visit's 1-9 s apart in bursts around two pauses of
160-330 s, so both last a few minutes. Layer B (float32 times, 128 s apart at 1.77e9) turns every wait into
0 / 128 / 256 s, which erases the bursts. LABEL_SWAP: 5% of bathroom visits are tagged with the other
bathroom activity by the residents (the README's excuse, true).

Run: python make_data.py OUT_DIR   (writes OUT_DIR/sessions.csv and OUT_DIR/streams/*.csv)
"""

import csv
import random
import sys
from datetime import datetime, timezone
from pathlib import Path

CLASSES = {  # name: (share, min events, max events)
    "cooking": (0.18, 24, 46),
    "watching_tv": (0.18, 16, 36),
    "sleeping": (0.13, 12, 28),
    "showering": (0.15, 9, 17),
    "toilet": (0.16, 8, 15),
    "leaving": (0.10, 3, 7),
    "arriving": (0.10, 3, 8),
}
HOMES = ["h01", "h02", "h03", "h04", "h05", "h06", "h07", "h08"]
WINDOWS = {  # name: [(share, first minute of the day, last minute), ...] for the session's start
    "showering": [(0.85, 405, 435), (0.15, 1080, 1320)],
    "toilet": [(0.6, 405, 435), (0.4, 480, 1380)],
    "leaving": [(1.0, 450, 525)],
    "arriving": [(1.0, 960, 1065)],
    "cooking": [(0.8, 1070, 1230), (0.2, 690, 780)],
    "watching_tv": [(1.0, 1200, 1380)],
    "sleeping": [(1.0, 1350, 1439)],
}
LABEL_SWAP = 0.05  # residents tag a bathroom visit with the other bathroom activity

AMBIENT = [  # events any activity can hold (another resident, the fridge, a pet)
    ("motion", "living", "on"), ("motion", "hall", "on"), ("motion", "kitchen", "on"),
    ("door", "fridge", "open"), ("door", "fridge", "close"), ("light", "hall", "on"),
    ("light", "hall", "off"), ("plug", "charger", "on"), ("plug", "charger", "off"),
    ("motion", "bedroom", "on"), ("light", "living", "on"), ("light", "living", "off"),
    ("water", "kitchen", "on"), ("water", "kitchen", "off"), ("door", "bath", "open"),
    ("door", "bath", "close"), ("motion", "bath", "on"), ("light", "kitchen", "on"),
    ("light", "kitchen", "off"), ("plug", "tv", "on"), ("door", "front", "open"), ("door", "front", "close"),
]

CORE = {
    "cooking": [("motion", "kitchen", "on", 5), ("plug", "stove", "on", 2), ("plug", "stove", "off", 1.5),
                ("door", "fridge", "open", 2), ("door", "fridge", "close", 2), ("water", "kitchen", "on", 2),
                ("water", "kitchen", "off", 2), ("fan", "kitchen", "on", 0.7), ("plug", "kettle", "on", 0.8),
                ("light", "kitchen", "on", 0.8)],
    "watching_tv": [("motion", "living", "on", 5), ("plug", "tv", "on", 1.2), ("plug", "tv", "off", 0.8),
                    ("light", "living", "on", 1.0), ("light", "living", "off", 0.8), ("plug", "charger", "on", 0.6),
                    ("door", "fridge", "open", 0.5), ("door", "fridge", "close", 0.5)],
    "sleeping": [("motion", "bedroom", "on", 5), ("light", "bedroom", "off", 1.2), ("light", "bedroom", "on", 0.6),
                 ("door", "bedroom", "close", 1.0), ("door", "bedroom", "open", 0.6), ("plug", "charger", "on", 0.8)],
    "showering": [("motion", "bath", "on", 4), ("water", "bath", "on", 1.6), ("water", "bath", "off", 1.6),
                  ("door", "bath", "close", 0.9), ("door", "bath", "open", 0.9)],
    "toilet": [("motion", "bath", "on", 4), ("water", "bath", "on", 1.4), ("water", "bath", "off", 1.4),
               ("door", "bath", "close", 0.9), ("door", "bath", "open", 0.9)],
    "leaving": [("motion", "hall", "on", 3), ("door", "front", "open", 1.6), ("door", "front", "close", 1.6),
                ("light", "hall", "off", 1.8), ("plug", "tv", "off", 1.0), ("light", "living", "off", 1.2),
                ("plug", "charger", "off", 1.0)],
    "arriving": [("motion", "hall", "on", 3), ("door", "front", "open", 1.6), ("door", "front", "close", 1.6),
                 ("light", "hall", "on", 1.8), ("plug", "kettle", "on", 1.0), ("light", "living", "on", 1.2),
                 ("plug", "charger", "on", 1.0)],
}
NOISE = {"cooking": 0.6, "watching_tv": 0.6, "sleeping": 0.6, "showering": 0.3, "toilet": 0.3, "leaving": 0.35, "arriving": 0.35}


def draw(rng, items):
    total = sum(w for *_, w in items)
    r = rng.random() * total
    for *ev, w in items:
        r -= w
        if r <= 0:
            return tuple(ev)
    return tuple(items[-1][:3])


FIRST, DAYS = 1767571200, 30  # 2026-01-05 00:00 (the homes' local clock), 30 days


def session_events(rng, label, start):
    """[(t, event)] with t in seconds from the session's start."""
    _, lo, hi = CLASSES[label]
    n = rng.randint(lo, hi)
    events, t = [], rng.randint(0, 5)
    if label in ("showering", "toilet"):
        # the same room, the same sensors: the bath light frames the visit, the fan is switched on in some
        # visits of either kind; what tells them apart is the rhythm: a shower's events come every half
        # minute to a minute and a half (water, motion, door), a toilet visit's in quick bursts a few
        # seconds apart (door, light, flush) around one or two long quiet stretches
        events.append((t, ("light", "bath", "on")))
        if rng.random() < (0.45 if label == "showering" else 0.25):
            events.append((t + rng.randint(1, 40), ("fan", "bath", "on")))
        pauses = set(rng.sample(range(2, n - 2), 2)) if label == "toilet" else set()
        while len(events) < n - 1:
            if label == "showering":
                t += rng.randint(20, 75)
            else:
                t += rng.randint(160, 330) if len(events) in pauses else rng.randint(1, 9)
            ev = rng.choice(AMBIENT) if rng.random() < NOISE[label] else draw(rng, CORE[label])
            events.append((t, ev))
        events.append((max(e[0] for e in events) + rng.randint(3, 30), ("light", "bath", "off")))
        events.sort(key=lambda e: e[0])
        return events
    while len(events) < n:
        t += rng.randint(2, 45)
        ev = rng.choice(AMBIENT) if rng.random() < NOISE[label] else draw(rng, CORE[label])
        events.append((t, ev))
    events.sort(key=lambda e: e[0])
    return events


def main(out):
    rng = random.Random(20261206)
    out = Path(out)
    (out / "streams").mkdir(parents=True, exist_ok=True)
    names, shares = list(CLASSES), [CLASSES[c][0] for c in CLASSES]
    sessions = []
    n_total = 2600
    taken = set()
    drawn = []
    for i in range(n_total):
        label = rng.choices(names, shares)[0]
        home = rng.choice(HOMES)
        while True:
            day = rng.randrange(DAYS)
            windows = WINDOWS[label]
            _, lo, hi = rng.choices(windows, [w[0] for w in windows])[0]
            start = FIRST + day * 86400 + rng.randint(lo, hi) * 60 + rng.randint(0, 59)
            sid = datetime.fromtimestamp(start, timezone.utc).strftime("%Y%m%d-%H%M")
            if (home, sid) not in taken:
                taken.add((home, sid))
                break
        drawn.append((start, home, sid, label))
    drawn.sort()
    rows = {h: {k: [] for k in ("door", "fan", "light", "motion", "plug", "water")} for h in HOMES}
    for start, home, sid, label in drawn:
        split = "val" if rng.random() < 0.25 else "train"
        tagged = label
        if label in ("showering", "toilet") and rng.random() < LABEL_SWAP:
            tagged = "toilet" if label == "showering" else "showering"
        sessions.append((sid, home, split, tagged, start))
        for t, (sensor, zone, state) in session_events(rng, label, start):
            stamp = start + t + rng.randint(0, 9) / 10
            rows[home][sensor].append((sid, f"{stamp:.1f}", zone, state))
    with open(out / "sessions.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["session", "home", "split", "activity", "start"])
        w.writerows(sessions)
    for home in HOMES:
        (out / "streams" / home).mkdir(parents=True, exist_ok=True)
        for sensor, rs in rows[home].items():
            with open(out / "streams" / home / f"{sensor}.csv", "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["session", "t", "zone", "state"])
                w.writerows(rs)


if __name__ == "__main__":
    main(sys.argv[1])
