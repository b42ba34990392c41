"""Ticket exports (JSON lines) to tensors, and the batch iterator the trainer uses."""

import torch

from textproc import Vocab
from tickets import read_export

QUEUES = ["account_access", "billing", "shipping", "returns", "technical",
          "privacy_request", "accessibility", "fraud_report"]


def read_tickets(path, routing_log=None):
    return read_export(path, routing_log)


class TicketSet:
    """Encoded tickets of one split: ids (N, max_len), lengths (N,), labels (N,), and the raw records."""

    def __init__(self, records, vocab, max_len, lowercase=True):
        self.records = records
        encoded = [vocab.encode(r["text"], max_len, lowercase) for r in records]
        self.ids = torch.tensor([e[0] for e in encoded], dtype=torch.long)
        self.lengths = torch.tensor([max(e[1], 1) for e in encoded], dtype=torch.long)
        self.labels = torch.tensor([QUEUES.index(r["queue"]) for r in records], dtype=torch.long)

    def __len__(self):
        return len(self.records)

    def channels(self):
        return [r.get("channel", "") for r in self.records]


def load_splits(data_cfg):
    train_rows = read_tickets(data_cfg.train_path, data_cfg.train_routing_log)
    val_rows = read_tickets(data_cfg.val_path)
    vocab = Vocab.build((r["text"] for r in train_rows), data_cfg.min_count, data_cfg.lowercase)
    train = TicketSet(train_rows, vocab, data_cfg.max_len, data_cfg.lowercase)
    val = TicketSet(val_rows, vocab, data_cfg.max_len, data_cfg.lowercase)
    return vocab, train, val


def iterate_batches(ds, batch_size, generator=None, shuffle=True, drop_last=True):
    """(ids, lengths, labels) batches; a shuffled permutation per call when `shuffle`."""
    n = len(ds)
    order = torch.randperm(n, generator=generator) if shuffle else torch.arange(n)
    stop = n - n % batch_size if drop_last else n
    for start in range(0, stop, batch_size):
        idx = order[start:start + batch_size]
        yield ds.ids[idx], ds.lengths[idx], ds.labels[idx]


def batches_per_epoch(ds, batch_size, drop_last=True):
    return len(ds) // batch_size if drop_last else -(-len(ds) // batch_size)
