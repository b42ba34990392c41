"""frontier_case_06, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_06-211abad670f22b86

Calls the agent's code only through config.load_config("configs/router.toml", [train.seed=seed]),
train.run(cfg) and (seed 0) dataset.load_splits(cfg.data). Per seed it records, for every trainable parameter
of the model run() returns, the weight decay of each optimizer group holding it, the number of optimizer steps,
what run() printed, and the validation predictions it returned (families/decay_groups.py, run_recorded). While
run() trains, a global forward pre-hook keeps the non-text inputs (every floating 2-D argument) of each
eval-mode call of a module that also receives a 2-D integer tensor (the token ids): the last 1,200 rows are the validation pass
that made the returned predictions (seed_<s>__side_inputs.pt). Once (seed 0) it also reads the validation
export with its queues permuted through dataset.load_splits and records whether every floating tensor of the
validation set is unchanged (features built without labels).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.decay_groups import run_recorded  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/router.toml"  # the README's --config
N_VAL = 1200


def float_tensors(obj):
    import torch

    return {k: v.detach().clone() for k, v in sorted(vars(obj).items())
            if isinstance(v, torch.Tensor) and v.is_floating_point()}


def measure(seed, rec):
    import torch

    config = import_workspace_module("config")
    train = import_workspace_module("train")
    calls = []

    def pre_hook(module, args):
        if module.training:
            return
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        if not any(t.dim() == 2 and t.dtype in (torch.int64, torch.int32) for t in tensors):
            return
        side = [t.detach().double().reshape(t.shape[0], -1) for t in tensors if t.is_floating_point() and t.dim() >= 2]
        if side:
            calls.append(torch.cat(side, dim=1))

    handle = torch.nn.modules.module.register_module_forward_pre_hook(pre_hook)
    try:
        run_recorded(rec, seed, require(config, "load_config"), require(train, "run"), CONFIG)
    finally:
        handle.remove()
    rows, taken = [], 0
    for block in reversed(calls):
        if taken >= N_VAL:
            break
        rows.insert(0, block)
        taken += block.shape[0]
    side = torch.cat(rows)[-N_VAL:] if rows and taken >= N_VAL and len({r.shape[1] for r in rows}) == 1 \
        else torch.zeros(0, 0, dtype=torch.float64)
    rec.save("side_inputs", {"x": side})
    if seed == 0:
        import json
        import random
        import tempfile

        dataset = import_workspace_module("dataset")
        load_config = require(config, "load_config")
        cfg = load_config(CONFIG, ["train.seed=0"])
        _, _, val_a = require(dataset, "load_splits")(cfg.data)
        with open(cfg.data.val_path) as f:
            lines = [json.loads(x) for x in f if x.strip()]
        queues = [r["queue"] for r in lines]
        random.Random(7).shuffle(queues)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "val_permuted.jsonl"
            with open(path, "w") as f:
                for r, q in zip(lines, queues):
                    f.write(json.dumps(dict(r, queue=q)) + "\n")
            cfg.data.val_path = str(path)
            _, _, val_b = require(dataset, "load_splits")(cfg.data)
        a, b = float_tensors(val_a), float_tensors(val_b)
        same = sorted(a) == sorted(b) and all(a[k].shape == b[k].shape and torch.equal(a[k], b[k]) for k in a)
        rec.put("features_label_free", {"tensors": sorted(a)[:12], "identical": bool(same)})


measure_main(measure)
