"""frontier_case_14, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_14-63650fbbfce09824

Runs the agent's train.run(train.make_config("configs/plant.toml", ["seed=s"])) at the README's
settings, with a global forward pre-hook that keeps the first validation's inputs (600 rows), then
probes the returned model: weights, two eval-mode forwards of 128 validation rows under different
RNG states, one training-mode forward with its RNG state (families/functional_dropout_mode.py).
It then builds the agent's splits twice (pumpwatch.data.pipeline.build_splits), the second time with
every other recording of the export doubled in level, and records how many validation rows' inputs change;
and a third time with every other recording's logged condition changed (a label leak changes the inputs).
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


N_CLASSES = 5
LABEL_CHANGED = 0.1   # a relabelled training recording may change which complete recording fills an
                      # interrupted slot (the scaler moves by far less than this)
SCALE = 2.0   # a power of two: every stage of a level-free pipeline gives bit-identical inputs
CHANGED = 1e-3


def level_reaches_inputs(rec, cfg):
    """Whether the model's inputs respond to a recording's absolute vibration level.

    Builds the agent's splits twice (pipeline.build_splits): once from the export as read, once with
    every other recording of the export multiplied by 2 (archive.read wrapped). Records the share of
    validation rows whose inputs change (max abs difference > CHANGED). A pipeline that takes each
    recording to unit RMS (or to any other per-recording level-free form) gives identical inputs
    (share 0); one that keeps the level (per-logger gain, the log RMS as an input, no scaling) changes
    them.
    """
    import dataclasses

    import numpy as np

    archive = import_workspace_module("pumpwatch.data.archive")
    pipeline = import_workspace_module("pumpwatch.data.pipeline")
    build_splits = require(pipeline, "build_splits")
    read = archive.read

    def scaled_read(*args, **kwargs):
        recs = read(*args, **kwargs)
        return [dataclasses.replace(r, wave=r.wave * np.float32(SCALE)) if i % 2 else r for i, r in enumerate(recs)]

    def relabelled_read(*args, **kwargs):
        recs = read(*args, **kwargs)
        return [dataclasses.replace(r, label=(r.label + 1) % N_CLASSES) if i % 2 else r for i, r in enumerate(recs)]

    def response(key, wrapped, threshold):
        archive.read = wrapped
        try:
            _, val1, _ = build_splits(cfg)
        finally:
            archive.read = read
        x1 = np.asarray(val1.x, dtype=np.float64)
        if x0.shape != x1.shape:
            rec.put(key, {"shape": [list(x0.shape), list(x1.shape)], "changed_share": 1.0})
            return
        diff = np.abs(x1 - x0).reshape(len(x0), -1).max(axis=1)
        rec.put(key, {"rows": int(len(x0)), "changed_share": float((diff > threshold).mean()),
                      "max_diff": float(diff.max())})

    _, val0, _ = build_splits(cfg)
    x0 = np.asarray(val0.x, dtype=np.float64)
    response("level_response", scaled_read, CHANGED)
    # the logged condition must not reach the inputs (a label leak): every other recording relabelled
    response("label_response", relabelled_read, LABEL_CHANGED)


def measure(seed, rec):
    train = import_workspace_module("train")
    run_fn, make_config = require(train, "run", "make_config")
    cfg = make_config(CONFIG, [f"seed={seed}", "output.dir=runs/verify"])
    watch_fit(rec, lambda: (lambda: run_fn(cfg, echo=False)), N_VAL)
    level_reaches_inputs(rec, cfg)


measure_main(measure)
