"""Train the activity classifier on the hub export and report it on the validation sessions.

    python train.py [--config configs/home.toml] [--set section.key=value ...]
"""

import argparse
import json
import time

import torch

from callbacks import KeepBest, ProgressLog
from checks import check_sessions
from config import load_config
from data import ACTIVITIES, EncodedSet, load_sessions, split_sessions
from metrics import format_report
from models import build_model, count_parameters
from vocab import Vocab


def run(cfg, verbose=True):
    """Train one model; returns {"model", "vocab", "report", "history"}."""
    say = print if verbose else (lambda *a, **k: None)
    torch.manual_seed(cfg.train.seed)
    sessions = load_sessions(cfg.data.root)
    for w in check_sessions(sessions, ACTIVITIES, cfg.data.min_events, cfg.data.max_events):
        say(w)
    train_s, val_s = split_sessions(sessions)
    vocab = Vocab.build(s.events for s in train_s)
    train = EncodedSet(train_s, vocab, cfg.data.max_events)
    val = EncodedSet(val_s, vocab, cfg.data.max_events)
    model = build_model(cfg.model, len(vocab), len(ACTIVITIES), cfg.data.max_events)
    say(f"{cfg.name}: {cfg.model.kind} ({count_parameters(model)} params), {len(train)} train / {len(val)} val "
        f"sessions, {len(vocab)} event types")
    from trainer import Trainer

    best = KeepBest()
    trainer = Trainer(model, train, val, cfg.train, ACTIVITIES, [ProgressLog(cfg.train.log_every), best])
    trainer.fit(torch.Generator().manual_seed(cfg.train.seed))
    best.restore(model)
    report = trainer.evaluate(val)
    say(format_report(report))
    return {"model": model, "vocab": vocab, "report": report, "history": trainer.history}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/home.toml")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--save-report", metavar="PATH", help="write the validation report and history as JSON")
    args = parser.parse_args()
    start = time.time()
    result = run(load_config(args.config, args.set))
    if args.save_report:
        with open(args.save_report, "w") as f:
            json.dump({"report": result["report"], "history": result["history"]}, f, indent=1)
    print(f"done in {time.time() - start:.1f}s")


if __name__ == "__main__":
    main()
