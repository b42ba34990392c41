"""Retrain a config and break its validation report down by home.

    python evaluate.py [--config configs/home.toml] [--set section.key=value ...]
"""

import argparse

import torch

from config import load_config
from data import ACTIVITIES, EncodedSet, load_sessions, split_sessions
from metrics import confusion, format_report, summary
from train import run


def by_home(model, vocab, cfg):
    _, val = split_sessions(load_sessions(cfg.data.root))
    out = {}
    model.eval()
    for home in sorted({s.home for s in val}):
        subset = EncodedSet([s for s in val if s.home == home], vocab, cfg.data.max_events)
        from data import iterate_batches

        with torch.no_grad():
            preds = torch.cat([model(t, n, ts).argmax(-1) for t, n, ts, _ in
                               iterate_batches(subset, cfg.train.eval_batch_size, shuffle=False)])
        out[home] = summary(confusion(preds, subset.labels, len(ACTIVITIES)), ACTIVITIES)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/home.toml")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    cfg = load_config(args.config, args.set)
    result = run(cfg, verbose=False)
    print(format_report(result["report"], "all homes"))
    for home, report in by_home(result["model"], result["vocab"], cfg).items():
        print(f"{home}: accuracy {report['accuracy']:.3f}  macro-f1 {report['macro_f1']:.3f}")


if __name__ == "__main__":
    main()
