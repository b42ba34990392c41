"""Train the next-syllable model on the spring recordings.

    python train.py [--config configs/spring26.toml] [--set section.key=value ...]
"""

import argparse
import json
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from checks import check_bouts
from config import load_config
from corpus import build_examples
from exports import load_birds, load_bouts, split_sessions
from metrics import count_hits, score_examples, summarize
from models import SongFormer
from optim import AdamW, warmup_cosine
from pack import fill_rate, pack
from sessionlog import SessionLog
from vocab import Vocab

COHORT_NAMES = {"2024a": "adults", "2025b": "juveniles"}


def load_corpus(cfg):
    bouts = load_bouts(cfg.data.export_dir)
    for problem in check_bouts(bouts):
        print(f"warning: {problem}")
    log = SessionLog.read(cfg.data.export_dir)
    cohorts = load_birds(cfg.data.export_dir)
    vocab = Vocab.from_bouts(bouts)
    train_b, val_b = split_sessions(bouts, cfg.data.val_fraction, cfg.data.split_seed)
    return vocab, build_examples(train_b, log, vocab, cohorts), build_examples(val_b, log, vocab, cohorts)


def run(cfg):
    torch.manual_seed(cfg.train.seed)
    np.random.seed(cfg.train.seed)
    vocab, train_ex, val_ex = load_corpus(cfg)
    n_syl = sum(e.n_syllables for e in train_ex)
    print(f"bouts: train {len(train_ex):,} ({n_syl:,} syllables) | val {len(val_ex):,} | "
          f"{len(vocab.birds)} birds, {vocab.n_syllables} syllable types")

    m = cfg.model
    model = SongFormer(vocab.size, vocab.size, m.dim, m.heads, m.layers, m.max_len, m.dropout,
                       n_feats=train_ex[0].feats.shape[1])
    opt = AdamW(model.named_parameters(), cfg.train.lr, cfg.train.weight_decay)
    t = cfg.train
    probe_x, probe_y, probe_t = pack(train_ex, cfg.data.row_len, seed=10_000)
    steps_per_epoch = len(probe_x) // cfg.data.batch_rows
    total = t.epochs * steps_per_epoch
    print(f"packed rows of {cfg.data.row_len}: {len(probe_x)} per epoch, {fill_rate(probe_y):.1%} of "
          f"tokens are targets | {steps_per_epoch} steps/epoch")

    history, step = [], 0
    for epoch in range(1, t.epochs + 1):
        x_all, y_all, t_all = pack(train_ex, cfg.data.row_len, seed=t.seed * 1000 + epoch)
        losses, hits, targets = [], 0, 0
        model.train()
        for i in range(steps_per_epoch):
            sl = slice(i * cfg.data.batch_rows, (i + 1) * cfg.data.batch_rows)
            opt.lr = t.lr * warmup_cosine(step, t.warmup_steps, total)
            logits = model(x_all[sl], t_all[sl])
            loss = F.cross_entropy(logits.transpose(1, 2), y_all[sl], ignore_index=-100)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), t.grad_clip)
            opt.step()
            losses.append(loss.item())
            batch_hits, batch_targets = count_hits(logits, y_all[sl])
            hits, targets = hits + batch_hits, targets + batch_targets
            step += 1
        val = summarize(score_examples(model, val_ex), val_ex)
        train_acc = hits / max(1, targets)
        history.append({"epoch": epoch, "step": step, "train_loss": float(np.mean(losses)),
                        "train_acc": train_acc, **{k: float(v) for k, v in val.items()}})
        print(f"step {step:4d} | epoch {epoch:2d} | train loss {np.mean(losses):.4f} | train acc {train_acc:.4f} "
              f"| val loss {val['loss']:.4f} | val acc {val['acc']:.4f}")

    final = history[-1]
    print("val acc by bout length: " + " | ".join(
        f"{name} {final['acc_' + name]:.4f}" for name in ("short", "medium", "long")))
    print("val acc by cohort: " + " | ".join(
        f"{COHORT_NAMES.get(c, c)} {final['acc_cohort_' + c]:.4f}" for c in sorted(COHORT_NAMES)))
    print(f"final: train acc {final['train_acc']:.4f} | val acc {final['acc']:.4f} | val loss {final['loss']:.4f}")
    if t.out_dir:
        out = Path(t.out_dir)
        out.mkdir(parents=True, exist_ok=True)
        torch.save(model.state_dict(), out / "songformer.pt")
        (out / "history.json").write_text(json.dumps(history, indent=1))
    return {"model": model, "history": history, "vocab": vocab}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/spring26.toml")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    args = parser.parse_args(argv)
    run(load_config(args.config, args.set))


if __name__ == "__main__":
    main()
