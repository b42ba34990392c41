"""frontier_case_14, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_14-63650fbbfce09824

Runs the agent's train.run(train.make_config("configs/plant.toml", ["seed=s"])) at the README's
settings, with a global forward pre-hook that keeps the first validation's inputs (600 rows), then
probes the returned model: weights, two eval-mode forwards of 128 validation rows under different
RNG states, one training-mode forward with its RNG state (families/functional_dropout_mode.py).
It then builds the same config's splits with the agent's pumpwatch.data.pipeline.build_splits and compares
what the model receives for every validation recording with the running speed recomputed in float64 from
the raw capture sheets (the workspace's data/sheet_<year>.csv, read as float64: the drive's revolution
counter at the capture's first and last sample over the capture's length in seconds).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.functional_dropout_mode import watch_fit  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/plant.toml"
N_VAL = 600


SPLIT_SEED = 7919


def sheet_speed(root, n):
    """The running speed of the export's first ``n`` recordings (the pipeline's order: year by year,
    capture order), recomputed in float64 from the raw capture sheet: (revs_end - revs_start) / seconds."""
    import csv

    import numpy as np

    out = []
    years = sorted(int(p.stem.split("_")[1]) for p in Path(root).glob("captures_*.npz"))
    for y in years:
        with np.load(Path(root) / f"captures_{y}.npz") as z:
            order = [int(c) for c in z["capture"]]
            seconds = z["length"].astype(np.float64) / z["rate"].astype(np.float64)
        with open(Path(root) / f"sheet_{y}.csv", newline="") as fh:
            rows = {int(r["capture"]): r for r in csv.DictReader(fh)}
        for c, sec in zip(order, seconds):
            r = rows[c]
            out.append((float(r["revs_end"]) - float(r["revs_start"])) / sec)
    return np.asarray(out[:n])


def received_speed(rec, cfg):
    """What the model receives for the running speed of every validation recording, against a float64
    recomputation from the raw capture sheet.

    The agent's validation inputs come from its own pipeline.build_splits; every channel is compared
    (its first frame) with the float64 speeds of the same recordings by a least-squares affine fit, so
    any unit, offset or standardization is accepted; the best channel's residual RMS over the speeds'
    spread is recorded.
    """
    import numpy as np

    data = import_workspace_module("pumpwatch.data.pipeline")
    build_splits = require(data, "build_splits")
    n = cfg.data.n_train + cfg.data.n_val
    speed = sheet_speed(getattr(cfg.data, "export", "data"), n)
    val_idx = np.random.default_rng([SPLIT_SEED, cfg.seed]).permutation(n)[:cfg.data.n_val]
    want = speed[val_idx]
    _, val, _ = build_splits(cfg)
    x = np.asarray(val.x, dtype=np.float64)
    design = np.stack([want - want.mean(), np.ones_like(want)], axis=1)
    best = None
    for ch in range(x.shape[1]):
        got = x[:, ch, 0]
        coef, *_ = np.linalg.lstsq(design, got, rcond=None)
        resid = got - design @ coef
        if abs(coef[0]) < 1e-12:
            continue
        ratio = float(np.sqrt((resid ** 2).mean()) / abs(coef[0]) / want.std())
        if best is None or ratio < best[1]:
            best = (ch, ratio)
    rec.put("received_speed", {"rows": int(x.shape[0]), "channels": int(x.shape[1]),
                                "speed_spread_hz": float(want.std()),
                                "best_channel": None if best is None else best[0],
                                "residual_over_spread": None if best is None else best[1]})


def measure(seed, rec):
    train = import_workspace_module("train")
    run_fn, make_config = require(train, "run", "make_config")
    cfg = make_config(CONFIG, [f"seed={seed}", "output.dir=runs/verify"])
    watch_fit(rec, lambda: (lambda: run_fn(cfg, echo=False)), N_VAL)
    received_speed(rec, cfg)


measure_main(measure)
