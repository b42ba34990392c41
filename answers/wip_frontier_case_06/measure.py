"""wip_frontier_case_06, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-wip_frontier_case_06-211abad670f22b86

Calls the agent's code only through config.load_config("configs/router.toml", [train.seed=seed]) and
train.run(cfg), as the README's `python train.py --config configs/router.toml` does. Per seed it records, for
every trainable parameter of the model run() returns (classified by module type: embedding, normalization,
bias, linear weight), the weight decay of each optimizer group holding it (found through a global optimizer
step hook), the number of optimizer steps, what run() printed, and the validation predictions it returned
(families/decay_groups.py, run_recorded). Once (seed 0) it also writes a small export of twin web tickets
(identical but for the status or error code the customer copied, one of the login queue's codes against one of
the app queue's) and reads it as the validation split through dataset.load_splits(cfg.data), recording the
token ids the model receives for each twin.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.decay_groups import run_recorded  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CODES = {"account_access": ["401", "403", "419", "1120", "1127"], "technical": ["500", "502", "503", "4031", "4090"]}

CONFIG = "configs/router.toml"  # the README's --config


def measure(seed, rec):
    config = import_workspace_module("config")
    train = import_workspace_module("train")
    run_recorded(rec, seed, require(config, "load_config"), require(train, "run"), CONFIG)
    if seed == 0:
        import json
        import tempfile

        dataset = import_workspace_module("dataset")
        load_config = require(config, "load_config")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "twins.jsonl"
            with open(path, "w") as f:
                for tid, queue, text in twin_tickets():
                    f.write(json.dumps({"id": tid, "created_at": 1759000000, "channel": "web", "queue": queue,
                                        "message": text}) + "\n")
            cfg = load_config(CONFIG, ["train.seed=0"])
            cfg.data.val_path = str(path)
            _, _, val_set = require(dataset, "load_splits")(cfg.data)
            rec.put("twins", [[str(r["id"])[:20], [int(x) for x in row]]
                              for r, row in zip(val_set.records, val_set.ids.tolist())])


def twin_tickets():
    """(id, queue, text): each template with every login code and every app code, same words otherwise."""
    templates = ["the page shows error {c} again", "getting status {c} since yesterday please help",
                 "error code {c} keeps showing on the screen", "popup says error {c} and failed"]
    out = []
    for k, t in enumerate(templates):
        for q, codes in CODES.items():
            for c in codes:
                out.append((f"W{k}-{q[:4]}-{c}", q, t.format(c=c)))
    return out


measure_main(measure)
