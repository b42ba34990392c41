"""Ticket exports (JSON lines) to tensors, per-ticket loss weights, and the batch iterator the trainer uses."""

import torch

from textproc import Vocab
from tickets import read_export

QUEUES = ["account_access", "billing", "shipping", "returns", "technical",
          "privacy_request", "accessibility", "fraud_report"]

DAY = 86400.0
ACTIVITY = ["web_visits", "app_sessions", "orders", "contacts"]


def read_tickets(path):
    """Ticket records (id, created_at, channel, queue, activity, text) of one export, in export order. An email's
    text is its subject line followed by its body, as the agents see it."""
    cols = read_export(path)
    texts = [f"subject {s}\n{t}" if c == "email" else str(t)
             for c, s, t in zip(cols["channel"], cols["subject"], cols["text"])]
    return [{"id": str(cols["id"][i]), "created_at": int(cols["created_at"][i]), "channel": str(cols["channel"][i]),
             "queue": str(cols["queue"][i]), "activity": cols["activity"][i], "text": texts[i]}
            for i in range(len(texts))]


def activity_features(counters):
    """The customer's lifetime activity counters (ACTIVITY: web visits, app sessions, orders, support contacts)
    as shares of their own total. Accounts range from a few days to over ten years old, so the raw counts span
    about four orders of magnitude and mostly measure the account's age; the shares say how the customer uses
    the service (web or app, how much ordering, how often they contact us), whatever the account's age.
    Missing counters count 0; an account with no activity at all gets equal shares."""
    counts = [float(counters.get(name, 0)) for name in ACTIVITY]
    total = sum(counts)
    if total <= 0:
        return [1.0 / len(ACTIVITY)] * len(ACTIVITY)
    return [c / total for c in counts]


class TicketSet:
    """Encoded tickets of one split: ids (N, max_len), lengths (N,), activity features (N, k), labels (N,), and
    the raw records.

    Rows are kept longest first, so that neighbouring rows share a padded length and an evaluation batch of
    neighbours can be trimmed to its longest ticket (see `iterate_batches`)."""

    def __init__(self, records, vocab, max_len, lowercase=True):
        records = sorted(records, key=lambda r: len(r["text"].split()), reverse=True)
        self.records = records
        encoded = [vocab.encode(r["text"], max_len, lowercase) for r in records]
        self.ids = torch.tensor([e[0] for e in encoded], dtype=torch.long)
        self.lengths = torch.tensor([max(e[1], 1) for e in encoded], dtype=torch.long)
        self.activity = torch.tensor([activity_features(r.get("activity", {})) for r in records], dtype=torch.float32)
        self.labels = torch.tensor([QUEUES.index(r["queue"]) for r in records], dtype=torch.long)

    def __len__(self):
        return len(self.records)

    def channels(self):
        return [r.get("channel", "") for r in self.records]


def recency_weights(rows, half_life_days):
    """Loss weight per ticket: halves every `half_life_days` of age (counted back from the newest ticket), so
    the queues' recent routing practice counts most; mean 1 over the split. No decay when half_life_days <= 0."""
    created = torch.tensor([float(r["created_at"]) for r in rows], dtype=torch.float64)
    if half_life_days <= 0 or len(rows) == 0:
        return torch.ones(len(rows))
    age_days = (created.max() - created) / DAY
    w = torch.pow(0.5, age_days / half_life_days)
    return (w / w.mean()).float()


def load_splits(data_cfg):
    train_rows = read_tickets(data_cfg.train_path)
    val_rows = read_tickets(data_cfg.val_path)
    vocab = Vocab.build((r["text"] for r in train_rows), data_cfg.min_count, data_cfg.lowercase)
    train = TicketSet(train_rows, vocab, data_cfg.max_len, data_cfg.lowercase)
    val = TicketSet(val_rows, vocab, data_cfg.max_len, data_cfg.lowercase)
    train.weights = recency_weights(train.records, data_cfg.recency_half_life_days)
    return vocab, train, val


def iterate_batches(ds, batch_size, generator=None, shuffle=True, drop_last=True):
    """(ids, lengths, activity, labels, weights) batches; a shuffled permutation per call when `shuffle`, else batches of
    neighbouring rows (for evaluation), each trimmed to its longest ticket."""
    n = len(ds)
    order = torch.randperm(n, generator=generator) if shuffle else torch.arange(n)
    stop = n - n % batch_size if drop_last else n
    weights = getattr(ds, "weights", None)
    for start in range(0, stop, batch_size):
        idx = order[start:start + batch_size]
        width = ds.ids.shape[1] if shuffle else int(ds.lengths[idx].max())
        w = weights[idx] if weights is not None else torch.ones(len(idx))
        yield ds.ids[idx, :width], ds.lengths[idx], ds.activity[idx], ds.labels[idx], w


def batches_per_epoch(ds, batch_size, drop_last=True):
    return len(ds) // batch_size if drop_last else -(-len(ds) // batch_size)
