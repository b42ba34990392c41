"""frontier_case_03, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_03-5694cfb8c940728e

Calls the agent's code only through config.load_config("configs/herd26.toml", [train.seed=s]) and
train.run(cfg), the README's `python train.py`. A global forward pre-hook finds the first module run forward
in training mode with gradients on (the model) and keeps, for each of its training forwards, the number of
exactly-zero inputs, the number of inputs and their sum of squares, with what run() printed
(families/compounding_augmentation.py). Then it loads the table through train.load_exports, builds the model inputs
through train.model_inputs, and compares the collar motion count each window receives (the moves_total
column of the inputs' first block: the change since the cow's previous window) with that change recomputed in
float64 from the raw export files (layer B's mechanism).
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


def motion_recomputed(config, train):
    """What the inputs the model trains and validates on carry in their moves_total column (first block), per
    window, against the change since the cow's previous window recomputed here from the raw exports in Python
    floats (float64); a cow's first window takes her second window's change. Returns (share of the export's
    windows within 0.05 of the recomputation, windows of the export missing from the inputs); (-1, -1) when
    the inputs cannot be built through train's names."""
    import csv
    import numpy as np
    try:
        cfg = config.load_config(CONFIG, [])
        table = train.load_exports(cfg.data.export_dir)
        x = np.asarray(train.model_inputs(table), dtype=np.float64)
        col = list(table.feature_names).index("moves_total")
        got = dict(zip((str(w) for w in table.window_ids), x[:, col]))
        ok = n = missing = 0
        for path in sorted(Path(cfg.data.export_dir).glob("*.csv")):
            series = {}
            with open(path, newline="") as f:
                for r in csv.DictReader(f):
                    series.setdefault(r["cow"], []).append((int(r["start_h"]), float(r["moves_total"]), r["window_id"]))
            for rows in series.values():
                rows.sort()
                d = [b[1] - a[1] for a, b in zip(rows, rows[1:])]
                d = [d[0]] + d
                for (_, _, wid), want in zip(rows, d):
                    if wid not in got:
                        missing += 1
                        continue
                    n += 1
                    ok += abs(got[wid] - want) <= 0.05
        return ok / max(n, 1), missing
    except Exception:
        return -1.0, -1


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    run_recorded(rec, seed, require(config, "load_config"), require(train, "run"), CONFIG)
    share, missing = motion_recomputed(config, train)
    rec.put("motion_match", share)
    rec.put("motion_windows_missing", missing)


measure_main(measure)
