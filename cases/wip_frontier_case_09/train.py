"""Train the frame tagger on the season's MFL inspection runs.

    python train.py [--config configs/ili.toml] [--set section.key=value ...]
"""

import argparse
import math
import random
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from batching import IGNORE, build_loader
from checks import check_manifest, short_spans
from config import load_config
from dataset import SegmentDataset
from export import TAGS, load_segments, read_manifest, split_runs
from features import Standardizer, frame_features, frame_readings, to_flux
from metrics import evaluate, f1s, rare_recall, recalls
from model import FrameTagger
from optim import AdamW, LambdaSchedule

RARE = (TAGS.index("dent"), TAGS.index("pitting"), TAGS.index("metal_loss"))


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def warmup_cosine(optimizer, warmup, total):
    def factor(step):
        if step < warmup:
            return (step + 1) / warmup
        return 0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))
    return LambdaSchedule(optimizer, factor)


def build_datasets(cfg):
    manifest = read_manifest(cfg.data.data_dir)
    for problem in check_manifest(manifest):
        print(f"warning: {problem}")
    segments = load_segments(cfg.data.data_dir, manifest)
    readings = frame_readings(to_flux(segments), segments)
    train_idx, val_idx = split_runs(segments, cfg.data.val_runs)
    standardizer = Standardizer.fit([frame_features(readings[i]) for i in train_idx])

    def subset(idx):
        return SegmentDataset([readings[i] for i in idx], [segments[i].tags for i in idx],
                              standardizer, [segments[i].seg_id for i in idx])

    train_ds, val_ds = subset(train_idx), subset(val_idx)
    runs = lambda idx: len({segments[i].run for i in idx})  # noqa: E731
    print(f"segments: {len(segments)} from {runs(range(len(segments)))} runs | train {len(train_ds)} "
          f"({runs(train_idx)} runs, {train_ds.frames():,} frames) | val {len(val_ds)} "
          f"({runs(val_idx)} runs, {val_ds.frames():,} frames)")
    short = short_spans([segments[i] for i in train_idx], TAGS.index("metal_loss"), cfg.data.min_span)
    if short:
        print(f"label check: {short} metal_loss spans in the training runs shorter than "
              f"{cfg.data.min_span} frames")
    return train_ds, val_ds


def run(cfg):
    seed_everything(cfg.train.seed)
    train_ds, val_ds = build_datasets(cfg)
    train_loader = build_loader(train_ds, cfg.data.batch_size, shuffle=True, seed=cfg.train.seed)
    val_loader = build_loader(val_ds, 32, shuffle=False)

    m, t = cfg.model, cfg.train
    model = FrameTagger(width=m.width, n_tags=len(TAGS), kernel=m.kernel, dropout=m.dropout)
    optimizer = AdamW(model.parameters(), lr=t.lr, weight_decay=t.weight_decay)
    scheduler = warmup_cosine(optimizer, t.warmup_steps, t.epochs * len(train_loader))
    step, history = 0, []
    for epoch in range(1, t.epochs + 1):
        model.train()
        losses = []
        for x, y, _ in train_loader:
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), ignore_index=IGNORE)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if t.grad_clip > 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), t.grad_clip)
            optimizer.step()
            scheduler.step()
            step += 1
            losses.append(loss.item())
        if epoch % t.log_every == 0 or epoch == t.epochs:
            ev = evaluate(model, val_loader, len(TAGS))
            history.append({"epoch": epoch, "step": step, "train_loss": float(np.mean(losses)), **ev})
            print(f"epoch {epoch:2d} | step {step:4d} | train loss {np.mean(losses):.4f} | val loss "
                  f"{ev['loss']:.4f} | val frame acc {ev['acc']:.4f} | rare recall "
                  f"{rare_recall(ev['confusion'], RARE):.4f}")

    conf = history[-1]["confusion"]
    print("val recall by tag: " + " | ".join(f"{n} {v:.3f}" for n, v in zip(TAGS, recalls(conf))))
    print("val F1 by tag:     " + " | ".join(f"{n} {v:.3f}" for n, v in zip(TAGS, f1s(conf))))
    print(f"final: val frame acc {history[-1]['acc']:.4f} | rare recall (dent, pitting, metal_loss) "
          f"{rare_recall(conf, RARE):.4f} | macro F1 {float(np.mean(f1s(conf))):.4f}")
    if t.out_dir:
        out = Path(t.out_dir)
        out.mkdir(parents=True, exist_ok=True)
        torch.save(model.state_dict(), out / "tagger.pt")
        np.save(out / "confusion.npy", conf)
    return model, history


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/ili.toml")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    args = parser.parse_args(argv)
    run(load_config(args.config, args.set))


if __name__ == "__main__":
    main()
