"""frontier_case_03, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_03-5694cfb8c940728e

Calls the agent's code only through config.load_config("configs/herd26.toml", [train.seed=s]) and
train.run(cfg), the README's `python train.py`. A global forward pre-hook finds the first module run forward
in training mode with gradients on (the model) and keeps, for each of its training forwards, the number of
exactly-zero inputs, the number of inputs and their sum of squares, with what run() printed
(families/compounding_augmentation.py). Then it loads the table through train.load_exports and compares its
step column with the steps recomputed from the raw exports' pedometer readings (layer B's mechanism).
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


def steps_recomputed(config, train):
    """What the table the model trains and validates on carries in its step column, against the steps
    recomputed here from the raw exports in Python integers: for every window whose previous window of the
    same cow is four hours earlier, the register difference modulo 2**16 (the collars' step register is 16
    bits). Windows after a gap (a collar restart) are left out: either handling is accepted there. Returns
    (share of the windows whose register went down that carry the modular difference, share of the other
    windows that carry the plain difference, windows of the export missing from the table); (-1, -1, -1)
    when the table cannot be loaded through train's names."""
    import csv
    import numpy as np
    try:
        cfg = config.load_config(CONFIG, [])
        table = train.load_exports(cfg.data.export_dir)
        names = list(table.feature_names)
        col = names.index("steps") if "steps" in names else names.index("pedometer")
        got = dict(zip((str(w) for w in table.window_ids), np.asarray(table.features, dtype=np.float64)[:, col]))
        down_ok = down_n = up_ok = up_n = missing = 0
        for path in sorted(Path(cfg.data.export_dir).glob("*.csv")):
            with open(path, newline="") as f:
                rows = list(csv.reader(f))
            head = rows[0]
            iw, ic, it, ip = (head.index(n) for n in ("window_id", "cow", "start_h", "pedometer"))
            series = {}
            for r in rows[1:]:
                series.setdefault(r[ic], []).append((int(r[it]), int(r[ip]), r[iw]))
            for s in series.values():
                s.sort()
                for (t0, c0, _), (t1, c1, wid) in zip(s, s[1:]):
                    if t1 - t0 != 4:
                        continue
                    if wid not in got:
                        missing += 1
                        continue
                    if c1 < c0:
                        down_n += 1
                        down_ok += abs(got[wid] - (c1 - c0) % 65536) <= 0.5
                    else:
                        up_n += 1
                        up_ok += abs(got[wid] - (c1 - c0)) <= 0.5
        return down_ok / max(down_n, 1), up_ok / max(up_n, 1), missing
    except Exception:
        return -1.0, -1.0, -1


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    run_recorded(rec, seed, require(config, "load_config"), require(train, "run"), CONFIG)
    down, up, missing = steps_recomputed(config, train)
    rec.put("steps_wrapped_match", down)
    rec.put("steps_plain_match", up)
    rec.put("steps_windows_missing", missing)


measure_main(measure)
