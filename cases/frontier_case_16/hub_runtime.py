"""What the hub runs: classify the activity from the live event feed.

The hub keeps the events of the current episode (since the last gap of `gap_s` seconds) and classifies
them after every new event; a label is published once it has won `confirm` classifications in a row.

    python hub_runtime.py MODEL.pt HOME SESSION_ID   (replays one exported session event by event)
"""

import argparse
from collections import deque

import torch

from config import load_config
from data import load_sessions
from models import build_model
from streams import merge_streams, read_streams
from vocab import Vocab


class LivePredictor:
    def __init__(self, model, vocab, activities, max_events=64, gap_s=300, confirm=2):
        self.model, self.vocab, self.activities = model.eval(), vocab, activities
        self.events, self.times, self.last_t = deque(maxlen=max_events), deque(maxlen=max_events), None
        self.gap_s, self.confirm = gap_s, confirm
        self.streak, self.candidate, self.published = 0, None, None

    def push(self, t, token):
        """Add one event at second t; returns the published label (or None while undecided)."""
        if self.last_t is not None and t - self.last_t > self.gap_s:
            self.events.clear()
            self.times.clear()
            self.streak, self.candidate, self.published = 0, None, None
        self.last_t = t
        self.events.append(token)
        self.times.append(t)
        ids = torch.tensor([self.vocab.encode(list(self.events))], dtype=torch.long)
        with torch.no_grad():
            logits = self.model(ids, torch.tensor([ids.shape[1]]), torch.tensor([list(self.times)]))
        label = self.activities[int(logits.argmax())]
        self.streak = self.streak + 1 if label == self.candidate else 1
        self.candidate = label
        if self.streak >= self.confirm:
            self.published = label
        return self.published


def load_exported(path):
    blob = torch.load(path, weights_only=False)
    cfg = load_config()
    for section in ("data", "model", "train"):
        for key, value in blob["config"][section].items():
            setattr(getattr(cfg, section), key, value)
    vocab = Vocab(blob["events"][2:])
    model = build_model(cfg.model, len(vocab), len(blob["activities"]), cfg.data.max_events)
    model.load_state_dict(blob["state_dict"])
    return model, vocab, blob["activities"], cfg


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("home")
    parser.add_argument("session")
    args = parser.parse_args()
    model, vocab, activities, cfg = load_exported(args.model)
    truth = {(s.home, s.id): activities[s.label] for s in load_sessions(cfg.data.root)}
    streams = read_streams(cfg.data.root)
    live = LivePredictor(model, vocab, activities, cfg.data.max_events)
    for i, (t, token) in enumerate(merge_streams(streams.get(args.home, {}), args.session, with_times=True)):
        label = live.push(t, token)
        print(f"{i:3d} {token:24s} -> {label or '...'}")
    print(f"labelled: {truth.get((args.home, args.session), '?')}")


if __name__ == "__main__":
    main()
