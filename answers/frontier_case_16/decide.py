"""frontier_case_16, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_16-243164d4b50d189d

Two independent defects. Layer A (model): models/attention.py hands the float 0/1 padding mask to
F.scaled_dot_product_attention, which ADDS a float mask to the scores: the events get +1, the padding 0,
so the padding keeps a share of every query's attention (the eager path's masked_fill(-inf) gives it none).
The summary slot of a short session in a batch padded to a long one mostly reads padding: leaving and
arriving (3-8 events) lose F1. Layer B (data pipeline meets the data's magnitude): the hubs' stream files
stamp every event with the hub's clock in epoch seconds (about 1.77e9, tenths of a second);
data.EncodedSet caches each session's times with torch.tensor(list of floats), i.e. float32, whose spacing
at 1.77e9 is 128 s, and the encoder takes the wait between consecutive events (torch.diff) from those
values, so every wait reads 0 or 128 s. Showering and toilet visits fire the same bathroom sensors and
differ mostly in rhythm (a toilet visit's events a few seconds apart around long pauses, a shower's every
20-75 s): with the waits gone they stay confused. A fix must make the model's logits for a session
independent of the padding it is batched with, and give the model the true waits (float64, times relative
to the session before the cast, or the differences taken before the cast are all fine).
Every run is the README's `python train.py` at train.seed = s. Checks per seed:

- recomputed `gaps_match_export`: the waits the trained model's `gap` layer receives for the first 256
  validation sessions equal, within 1 s, the float64 differences of consecutive event times recomputed here
  from the unchanged export (broken: up to 128 s off in most sessions);
- recomputed `every_exported_event_kept`: for every session (home, id), the multiset of events load_sessions
  gives equals its own home's export (recomputed here from the unchanged case's streams/<home>/*.csv); the
  pass on the broken case too (they guard the per-home join); dropping sessions fails it;
- recomputed `events_in_time_order`: the events, cut into the export's same-second groups in time order,
  match group by group (any order inside a second is accepted);
- reported `padding_gets_no_attention`: the trained model's logits for a validation session alone and
  right-padded to 64 events in a batch differ by at most 1e-4 x max(1, largest logit) (broken: about 1);
- reported `door_classes_f1`: mean F1 of leaving and arriving >= 0.75 (A fixed: 0.80-0.88; B fixed alone:
  0.56-0.62; broken 0.65-0.87, the padding check rejects those);
- reported `bathroom_classes_f1`: mean F1 of showering and toilet >= 0.92 (both fixed: 0.97-0.98; B broken,
  A fixed: 0.70-0.84).

Then, on what the README's own command printed (source readme_run): `readme_run_completes` and
`readme_run_matches_measured_report`: the printed validation table (recall, precision, F1 of every class,
accuracy, macro-F1) equals the seed-0 run's report within 0.002.
"""

import csv
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import Unreadable, decide_main, numbers, pristine_case, pristine_memo  # noqa: E402

SENSORS = ("door", "fan", "light", "motion", "plug", "water")
DOOR, BATH = ("leaving", "arriving"), ("showering", "toilet")
DOOR_F1, BATH_F1 = 0.75, 0.92
GAP_TOL = 1.0
MAX_EVENTS = 64
LOGIT_RTOL = 1e-4
TABLE_TOL = 0.002


def exported_groups():
    """{"home/session": [[tokens of one second], ...] in time order}, from the unchanged export."""
    def compute():
        root = pristine_case() / "data"
        by_session = defaultdict(lambda: defaultdict(list))
        for home in sorted(p for p in (root / "streams").iterdir() if p.is_dir()):
            for sensor in SENSORS:
                path = home / f"{sensor}.csv"
                if not path.exists():
                    continue
                with open(path, newline="") as f:
                    for row in csv.DictReader(f):
                        key = f"{home.name}/{row['session']}"
                        by_session[key][float(row["t"])].append(f"{sensor}:{row['zone']}:{row['state']}")
        with open(root / "sessions.csv", newline="") as f:
            ids = [f"{row['home']}/{row['session']}" for row in csv.DictReader(f)]
        return {sid: [sorted(by_session[sid][t]) for t in sorted(by_session[sid])] for sid in ids}
    return pristine_memo("exported_groups", compute)


def exported_gaps():
    """{"home/session": [0, t1 - t0, t2 - t1, ...]} in float64 from the unchanged export (first 64 events)."""
    def compute():
        out = {}
        for sid, groups in exported_groups_times().items():
            ts = groups[:MAX_EVENTS]
            out[sid] = [0.0] + [b - a for a, b in zip(ts, ts[1:])]
        return out
    return pristine_memo("exported_gaps", compute)


def exported_groups_times():
    root = pristine_case() / "data"
    times = defaultdict(list)
    for home in sorted(p for p in (root / "streams").iterdir() if p.is_dir()):
        for sensor in SENSORS:
            path = home / f"{sensor}.csv"
            if path.exists():
                with open(path, newline="") as f:
                    for row in csv.DictReader(f):
                        times[f"{home.name}/{row['session']}"].append(float(row["t"]))
    return {sid: sorted(ts) for sid, ts in times.items()}


def class_f1(report, names):
    classes = report.get("classes") if isinstance(report, dict) else None
    if not isinstance(classes, dict):
        raise Unreadable("report has no per-class table")
    values = []
    for name in names:
        f1 = classes.get(name, {}).get("f1") if isinstance(classes.get(name), dict) else None
        if not isinstance(f1, (int, float)):
            raise Unreadable(f"report has no F1 for {name}")
        values.append(float(f1))
    return sum(values) / len(values)


def decide(seed, m, checks):
    groups = exported_groups()
    events = m.value("events", dict)
    lost, disordered, missing = 0, 0, 0
    for sid, expected in groups.items():
        got = events.get(sid)
        if not isinstance(got, list):
            missing += 1
            continue
        if Counter(got) != Counter(t for g in expected for t in g):
            lost += 1
            continue
        pos = 0
        for g in expected:
            if sorted(got[pos:pos + len(g)]) != g:
                disordered += 1
                break
            pos += len(g)
    checks.check("every_exported_event_kept", lost == 0 and missing == 0,
                 value={"sessions_changed": lost, "sessions_missing": missing, "sessions": len(groups)},
                 bound="0 sessions whose events differ from their own home's export (recomputed from streams/<home>/*.csv)")
    checks.check("events_in_time_order", disordered == 0 and lost == 0 and missing == 0,
                 value={"sessions_out_of_order": disordered},
                 bound="every session's events follow the export's seconds in order (any order inside a second)")

    expected = exported_gaps()
    received = m.value("gaps", dict)
    worst, off, compared = 0.0, 0, 0
    for sid, gaps in received.items():
        want = expected.get(sid)
        if not isinstance(gaps, list) or want is None or len(gaps) != len(want):
            off += 1
            continue
        compared += 1
        err = max((abs(float(a) - b) for a, b in zip(gaps, want)), default=0.0)
        worst = max(worst, err)
        off += err > GAP_TOL
    checks.check("gaps_match_export", compared >= 200 and off == 0,
                 value={"sessions_compared": compared, "sessions_off": off, "max_error_s": round(worst, 3)},
                 bound=f"the waits the model's gap layer receives equal the export's float64 waits within {GAP_TOL} s "
                       "(>= 200 validation sessions)")

    probe = m.value("pad_probe", dict)
    diff, scale = float(probe.get("max_logit_diff", float("inf"))), float(probe.get("max_logit", 0.0))
    limit = LOGIT_RTOL * max(1.0, scale)
    checks.check("padding_gets_no_attention", diff <= limit and probe.get("sessions", 0) >= 64,
                 value={"max_logit_diff": diff, "max_logit": scale, "sessions": probe.get("sessions")},
                 bound=f"logits alone vs right-padded to 64 differ by <= {limit:.2e}", source="reported",
                 limit=limit, sense="<")

    report = m.value("report", dict)
    door = class_f1(report, DOOR)
    checks.check("door_classes_f1", door >= DOOR_F1, value=round(door, 4),
                 bound=f"mean F1 of leaving and arriving >= {DOOR_F1} (A fixed 0.80-0.88, A broken 0.56-0.87: the padding check rejects those)",
                 source="reported", limit=DOOR_F1, sense=">")
    bath = class_f1(report, BATH)
    checks.check("bathroom_classes_f1", bath >= BATH_F1, value=round(bath, 4),
                 bound=f"mean F1 of showering and toilet >= {BATH_F1} (both fixed 0.97-0.98, B broken 0.70-0.84)",
                 source="reported", limit=BATH_F1, sense=">")


def readme(run, measured, checks):
    report = measured[0].value("report", dict)
    classes = report.get("classes", {})
    printed, worst = {}, 0.0
    for line in run["stdout"].splitlines():
        parts = line.split()
        if len(parts) == 5 and parts[0] in classes:
            printed[parts[0]] = numbers(line)[:3]
        elif line.strip().startswith("accuracy") and "macro-f1" in line:
            printed["__total"] = numbers(line)[:2]
    ok = set(printed) == set(classes) | {"__total"}
    if ok:
        for name, c in classes.items():
            want = [c["recall"], c["precision"], c["f1"]]
            worst = max(worst, max(abs(a - b) for a, b in zip(printed[name], want)))
        worst = max(worst, abs(printed["__total"][0] - report["accuracy"]), abs(printed["__total"][1] - report["macro_f1"]))
    checks.check("readme_run_matches_measured_report", ok and worst <= TABLE_TOL,
                 value={"rows": sorted(printed), "max_diff": worst},
                 bound=f"the printed table equals the seed-0 report within {TABLE_TOL}", source="readme_run")


decide_main(decide, readme=readme)
