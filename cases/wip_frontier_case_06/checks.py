"""Sanity checks on the exports before training: labels known, no empty text, class counts, overlap."""

from collections import Counter

from dataset import QUEUES

MIN_PER_QUEUE = 120


def check_records(train_rows, val_rows, warn=print):
    problems = 0
    for split, rows in (("train", train_rows), ("val", val_rows)):
        unknown = [r["id"] for r in rows if r.get("queue") not in QUEUES]
        if unknown:
            raise ValueError(f"{split}: {len(unknown)} tickets with an unknown queue, e.g. {unknown[:3]}")
        empty = [r["id"] for r in rows if not r.get("text", "").strip()]
        if empty:
            raise ValueError(f"{split}: {len(empty)} tickets with no text, e.g. {empty[:3]}")
    counts = Counter(r["queue"] for r in train_rows)
    for queue in QUEUES:
        if counts[queue] < MIN_PER_QUEUE:
            warn(f"warning: queue {queue!r} has {counts[queue]} training tickets (< {MIN_PER_QUEUE})")
            problems += 1
    shared = {r["id"] for r in train_rows} & {r["id"] for r in val_rows}
    if shared:
        raise ValueError(f"{len(shared)} ticket ids in both splits")
    return problems


def rare_queues(train_rows, share=0.05):
    counts = Counter(r["queue"] for r in train_rows)
    total = sum(counts.values())
    return [q for q in QUEUES if counts[q] < share * total]
