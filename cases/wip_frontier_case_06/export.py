"""Export a trained router for the routing service: a TorchScript module plus the vocabulary and queue names.

python export.py --config configs/router.toml --set train.out_dir=runs/r1"""

import json
import sys
from pathlib import Path

import torch

from config import cli_config
from dataset import QUEUES
from evaluate import load_router


def export(cfg, out_dir):
    model, vocab = load_router(cfg, f"{out_dir}/router.pt")
    n_activity = model.act_proj.in_features
    example = (torch.ones(1, cfg.data.max_len, dtype=torch.long), torch.tensor([cfg.data.max_len]),
               torch.full((1, n_activity), 1.0 / n_activity))
    traced = torch.jit.trace(model, example)
    out = Path(out_dir)
    traced.save(str(out / "router.ts"))
    meta = {"queues": QUEUES, "itos": vocab.itos, "max_len": cfg.data.max_len, "lowercase": cfg.data.lowercase}
    (out / "router.json").write_text(json.dumps(meta))
    return out / "router.ts", out / "router.json"


def main(argv=None):
    torch.set_num_threads(1)
    cfg, _ = cli_config(argv, "export a trained router")
    if not cfg.train.out_dir:
        raise SystemExit("set train.out_dir to the folder holding router.pt")
    for path in export(cfg, cfg.train.out_dir):
        print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
