"""Train PickNet on the Kettle Ridge catalog.

    python train.py [--config configs/ridge26.toml] [--set section.key=value ...]
"""

import argparse
import json
import random
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, random_split

from augment import BandJitter
from catalog import load_exports
from checks import check_table
from config import load_config
from dataset import RecordDataset
from metrics import evaluate, recalls
from model import PickNet
from response import StationResponse


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def build_datasets(table, cfg):
    """The catalog's records split at random into training and validation (fixed by data.split_seed);
    training reads its records through the augmentation, validation reads them as they are."""
    response = StationResponse(table, cfg.data.stations)
    a = cfg.augment
    full = RecordDataset(table, response, transform=BandJitter(a.band_noise, a.level_shift, a.tilt))
    n_val = int(round(cfg.data.val_fraction * len(full)))
    split = torch.Generator().manual_seed(cfg.data.split_seed)
    train_set, val_set = random_split(full, [len(full) - n_val, n_val], generator=split)
    val_set.dataset.transform = None
    return train_set, val_set


def run(cfg):
    seed_everything(cfg.train.seed)
    table = load_exports(cfg.data.export_dir)
    for problem in check_table(table):
        print(f"warning: {problem}")
    train_set, val_set = build_datasets(table, cfg)
    print(f"records: {len(table):,} from {len(set(table.stations))} stations | train {len(train_set):,} "
          f"| val {len(val_set):,}")

    g = torch.Generator().manual_seed(cfg.train.seed)
    train_loader = DataLoader(train_set, batch_size=cfg.data.batch_size, shuffle=True, generator=g, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=512, shuffle=False)
    n_inputs = train_set[0][0].numel()
    m, t = cfg.model, cfg.train
    model = PickNet(n_inputs, table.classes, m.hidden, m.depth, m.dropout)
    optimizer = torch.optim.AdamW(model.parameters(), lr=t.lr, weight_decay=t.weight_decay)
    total = t.epochs * len(train_loader)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 0.5 * (1 + np.cos(np.pi * min(s, total) / total)))

    history = []
    for epoch in range(1, t.epochs + 1):
        model.train()
        losses = []
        for x, y in train_loader:
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            schedule.step()
            losses.append(loss.item())
        res = evaluate(model, val_loader, len(table.classes))
        res["train_loss"] = float(np.mean(losses))
        history.append({"epoch": epoch, **res})
        if epoch % t.log_every == 0 or epoch == t.epochs:
            print(f"epoch {epoch:2d} | train loss {res['train_loss']:.4f} | val loss {res['loss']:.4f} "
                  f"| val acc {res['acc']:.4f} | val bal acc {res['bal_acc']:.4f}")

    final = history[-1]
    rec = recalls(final["confusion"])
    print("val recall by class: " + " | ".join(f"{c} {r:.3f}" for c, r in zip(table.classes, rec)))
    print(f"final: val acc {final['acc']:.4f} | balanced acc {final['bal_acc']:.4f} "
          f"| train loss {final['train_loss']:.4f}")
    if t.out_dir:
        out = Path(t.out_dir)
        out.mkdir(parents=True, exist_ok=True)
        torch.save(model.state_dict(), out / "picknet.pt")
        (out / "metrics.json").write_text(json.dumps(
            [{k: v for k, v in h.items() if k != "confusion"} for h in history], indent=1))
    return model, history


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/ridge26.toml")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    args = parser.parse_args(argv)
    run(load_config(args.config, args.set))


if __name__ == "__main__":
    main()
