"""frontier_case_14, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_14-63650fbbfce09824

Runs the agent's train.run(train.make_config("configs/plant.toml", ["seed=s"])) at the README's
settings, with a global forward pre-hook that keeps the first validation's inputs (600 rows), then
probes the returned model: weights, two eval-mode forwards of 128 validation rows under different
RNG states, one training-mode forward with its RNG state (families/functional_dropout_mode.py).
It then reads the same config's export with the agent's pumpwatch.data.pipeline.recordings and compares
every returned recording's peak in m/s^2 with the one its own export file's range sheet gives.
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


def physical_scale(rec, cfg):
    """Each recording the agent's pipeline.recordings returns, against the export's own files.

    A capture is found again by its label, pump, length and the position of its largest count (all
    unchanged by any scaling); its expected peak in m/s^2 is that count times the full scale its OWN
    file's range sheet gives, over 32767.
    """
    import numpy as np

    data = import_workspace_module("pumpwatch.data.pipeline")
    synth = import_workspace_module("pumpwatch.data.synth")
    recordings = require(data, "recordings")
    export = require(synth, "export")
    files = export(cfg.data.n_train + cfg.data.n_val, cfg.seed)
    truth = {}
    for f in files:
        sheet = {int(r["capture"]): float(r["full_scale"]) for r in f["ranges"]}
        for c in f["captures"]:
            counts = np.asarray(c.counts, dtype=np.float64)
            k = int(np.abs(counts).argmax())
            truth[(int(c.label), int(c.pump), len(counts), k)] = abs(counts[k]) * sheet[int(c.capture)] / 32767.0
    found, off, ratios = 0, 0, []
    recs = recordings(cfg)
    for r in recs:
        w = np.asarray(r.wave, dtype=np.float64)
        k = int(np.abs(w).argmax())
        want = truth.get((int(r.label), int(r.pump), len(w), k))
        if want is None:
            continue
        found += 1
        ratio = abs(w[k]) / want
        if abs(ratio - 1.0) > 0.01:
            off += 1
            ratios.append(round(ratio, 3))
    rec.put("physical_scale", {"export": len(truth), "returned": len(recs), "found": found,
                                "wrong_scale": off, "ratios": sorted(set(ratios))[:10]})


def measure(seed, rec):
    train = import_workspace_module("train")
    run_fn, make_config = require(train, "run", "make_config")
    cfg = make_config(CONFIG, [f"seed={seed}", "output.dir=runs/verify"])
    watch_fit(rec, lambda: (lambda: run_fn(cfg, echo=False)), N_VAL)
    physical_scale(rec, cfg)


measure_main(measure)
