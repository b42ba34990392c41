"""frontier_case_17, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_17-88df9225a17914f3

Calls the agent's code only through config.load_config("configs/fleet26.toml", [train.seed=s]) and
train.run(cfg), the README's `python train.py`, with sampling.build_train_loader wrapped (on the sampling
module and on every workspace module that holds the same function) so the labels and loss weights of every
batch the training loader yields are recorded. A global forward pre-hook snapshots the parameters of the first
module run forward in training mode with gradients on (the model, at its first training step); the pristine
pretrained file's backbone arrays are recorded beside them (families/reinit_after_load.py).

Layer B: the table the training loader is built from is recorded too (its pass ids and the three impact
features the model receives, by column name), beside the same features recomputed here in float64 from the
pristine exports' raw `axle_in` / `axle_out` / `impacts` columns (the detectors' int64 sample counters, taken
relative to axle_in as integers before any division) with the revolution index floor(3 * (t - t_in) / (t_out - t_in)).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.reinit_after_load import run_recorded  # noqa: E402
from verifylib import import_workspace_module, measure_main, pristine_case, require, workspace_holders  # noqa: E402

CONFIG = "configs/fleet26.toml"  # train.py's default --config


def _pretrained():
    bundled = pristine_case() / "pretrained" / "wheelnet_2025.npz"
    if bundled.is_file():
        return bundled
    return HERE.parent.parent / "cases" / "frontier_case_17" / "pretrained" / "wheelnet_2025.npz"


IMPACT_NAMES = ("hits_per_rev", "max_hits_rev", "rev_peak_cv")
SAMPLE_RATE_HZ = 25_600
ZONE_REVOLUTIONS = 3


def _reference_impacts():
    """{pass_id: (hits_per_rev, max_hits_rev, rev_peak_cv)} from the pristine exports, in float64."""
    import csv

    import numpy as np

    ref = {}
    for path in sorted((_pretrained().parent.parent / "data" / "exports").glob("*.csv")):
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader)
            ia, io, ii = header.index("axle_in"), header.index("axle_out"), header.index("impacts")
            for r in reader:
                pairs = [item.split("@") for item in r[ii].split()]
                if not pairs:
                    ref[r[0]] = (0.0, 0.0, 0.0)
                    continue
                c_in, c_out = int(r[ia]), int(r[io])
                rel = np.array([int(c) - c_in for c, _ in pairs], dtype=np.int64)
                kn = np.array([float(k) for _, k in pairs], dtype=np.float64)
                t = rel / SAMPLE_RATE_HZ
                rev = np.floor(ZONE_REVOLUTIONS * t / ((c_out - c_in) / SAMPLE_RATE_HZ)).astype(np.int64)
                _, slot, hits = np.unique(rev, return_inverse=True, return_counts=True)
                peaks = np.zeros(len(hits))
                np.maximum.at(peaks, slot, kn)
                cv = peaks.std() / peaks.mean() if len(peaks) > 1 else 0.0
                ref[r[0]] = (float(hits.mean()), float(hits.max()), float(cv))
    return ref


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    sampling = import_workspace_module("sampling")
    load_config = require(config, "load_config")
    run_fn = require(train, "run")
    original = require(sampling, "build_train_loader")
    holders = workspace_holders("build_train_loader", original)
    seen = {}

    def recording(table, *args, **kwargs):
        if "ids" not in seen:
            seen["ids"] = [str(p) for p in table.pass_ids]
            names = list(table.feature_names)
            cols = [names.index(n) if n in names else None for n in IMPACT_NAMES]
            seen["cols"] = [c is not None for c in cols]
            seen["got"] = [[float(table.features[i, c]) if c is not None else float("nan") for c in cols]
                           for i in range(len(seen["ids"]))]
        return original(table, *args, **kwargs)

    run_recorded(rec, seed, load_config, run_fn, holders, "build_train_loader", recording, CONFIG, _pretrained())
    import torch

    ref = _reference_impacts()
    ids = seen.get("ids", [])
    rec.put("impact_columns_found", bool(seen) and all(seen["cols"]))
    rec.put("train_passes", len(ids))
    rec.put("train_ids_known", all(p in ref for p in ids))
    got = torch.tensor(seen.get("got", []), dtype=torch.float64).reshape(-1, 3)
    want = torch.tensor([ref.get(p, (float("nan"),) * 3) for p in ids], dtype=torch.float64).reshape(-1, 3)
    rec.save("impacts", {"got": got, "want": want})


measure_main(measure)
