"""wip_frontier_case_17, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-wip_frontier_case_17-88df9225a17914f3

Calls the agent's code only through config.load_config("configs/fleet26.toml", [train.seed=s]) and
train.run(cfg), the README's `python train.py`, with sampling.build_train_loader wrapped (on the sampling
module and on every workspace module that holds the same function) so the labels and loss weights of every
batch the training loader yields are recorded. A global forward pre-hook snapshots the parameters of the first
module run forward in training mode with gradients on (the model, at its first training step); the pristine
pretrained file's backbone arrays are recorded beside them (families/reinit_after_load.py).

Layer B: the training dataset the loader is built on is recorded too: its pass ids and every model input
it holds (`x`, whatever its width), saved in float64 beside the same passes' twelve band levels, speed and
axle load in the pristine exports (decide.py asks how much of each pass's impact level at given speed and
load the model's inputs still carry).
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
    return HERE.parent.parent / "cases" / "wip_frontier_case_17" / "pretrained" / "wheelnet_2025.npz"


PREFIX = "band_"
DRIVERS = ("speed_kmh", "axle_load_t")


def _reference_rows():
    """{pass_id: [12 band levels, speed_kmh, axle_load_t]} from the pristine exports."""
    import csv

    rows = {}
    for path in sorted((_pretrained().parent.parent / "data" / "exports").glob("*.csv")):
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader)
            cols = [j for j, n in enumerate(header) if n.startswith(PREFIX)] + [header.index(n) for n in DRIVERS]
            for r in reader:
                rows[r[0]] = [float(r[j]) for j in cols]
    return rows


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    sampling = import_workspace_module("sampling")
    load_config = require(config, "load_config")
    run_fn = require(train, "run")
    original = require(sampling, "build_train_loader")
    holders = workspace_holders("build_train_loader", original)
    seen = {}

    def recording(table, standardizer, *args, **kwargs):
        loader = original(table, standardizer, *args, **kwargs)
        if "ids" not in seen:
            ds = getattr(loader, "dataset", None)
            seen["found"] = ds is not None and hasattr(ds, "x") and hasattr(ds, "pass_ids")
            if seen["found"]:
                import numpy as np
                import torch
                x = np.asarray(torch.as_tensor(ds.x).detach().double())
                seen["ids"] = [str(p) for p in ds.pass_ids]
                seen["got"] = x.reshape(len(seen["ids"]), -1).tolist()
        return loader
    run_recorded(rec, seed, load_config, run_fn, holders, "build_train_loader", recording, CONFIG, _pretrained())
    import torch

    ref = _reference_rows()
    ids = seen.get("ids", [])
    rec.put("inputs_found", bool(seen.get("found")))
    rec.put("train_passes", len(ids))
    rec.put("train_ids_known", all(p in ref for p in ids))
    keep = [i for i, p in enumerate(ids) if p in ref]
    width = len(seen["got"][0]) if keep else 0
    got = torch.tensor([seen["got"][i] for i in keep], dtype=torch.float64).reshape(-1, max(width, 1))
    want = torch.tensor([ref[ids[i]] for i in keep], dtype=torch.float64).reshape(-1, 14)
    rec.save("inputs", {"got": got, "want": want})


measure_main(measure)
