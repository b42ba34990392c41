"""frontier_case_03, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_03-5694cfb8c940728e

Calls the agent's code only through config.load_config("configs/herd26.toml", [train.seed=s]) and
train.run(cfg), the README's `python train.py`. A global forward pre-hook finds the first module run forward
in training mode with gradients on (the model) and keeps, for each of its training forwards, the number of
exactly-zero inputs, the number of inputs and their sum of squares, with what run() printed
(families/compounding_augmentation.py). Then it loads the table through train.load_exports and compares its
walkway-pace column with the pace recomputed in float64 from the raw walkway fixes (layer B's mechanism).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.compounding_augmentation import run_recorded  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/herd26.toml"  # train.py's default --config


def pace_recomputed(config, train):
    """What the table the model trains and validates on carries in its walkway-pace column, against the pace
    recomputed here from the raw walkway fixes in Python floats (float64): per window, the median of the
    distances between consecutive fixes on the flat-earth projection at the pass's first fix. Returns (share
    of the export's windows whose table pace is within 0.01 m/s of the recomputation, windows of the export
    missing from the table); (-1, -1) when the table cannot be loaded through train's names."""
    import csv
    import math
    import statistics
    import numpy as np
    try:
        cfg = config.load_config(CONFIG, [])
        table = train.load_exports(cfg.data.export_dir)
        col = list(table.feature_names).index("walk_pace")
        got = dict(zip((str(w) for w in table.window_ids), np.asarray(table.features, dtype=np.float64)[:, col]))
        ok = n = missing = 0
        for path in sorted((Path(cfg.data.export_dir).parent / "walkway").glob("*.csv")):
            tracks = {}
            with open(path, newline="") as f:
                for r in csv.DictReader(f):
                    tracks.setdefault(r["window_id"], []).append((int(r["fix"]), float(r["lat"]), float(r["lon"])))
            for wid, fixes in tracks.items():
                fixes.sort()
                lat0 = fixes[0][1]
                ky, kx = 111_195.0, 111_195.0 * math.cos(math.radians(lat0))
                d = [math.hypot((b[1] - a[1]) * ky, (b[2] - a[2]) * kx) for a, b in zip(fixes, fixes[1:])]
                if wid not in got:
                    missing += 1
                    continue
                n += 1
                ok += abs(got[wid] - statistics.median(d)) <= 0.01
        return ok / max(n, 1), missing
    except Exception:
        return -1.0, -1


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    run_recorded(rec, seed, require(config, "load_config"), require(train, "run"), CONFIG)
    share, missing = pace_recomputed(config, train)
    rec.put("pace_match", share)
    rec.put("pace_windows_missing", missing)


measure_main(measure)
