"""Sessions, the train/val split and the batches the trainer reads."""

from dataclasses import dataclass
import torch

from streams import merge_streams, read_sessions, read_streams

ACTIVITIES = ("arriving", "cooking", "leaving", "showering", "sleeping", "toilet", "watching_tv")


@dataclass
class Session:
    id: str
    home: str
    split: str
    label: int
    events: list  # token strings, in time order
    times: list = None  # the hub's clock for each event
    start: int = 0  # unix seconds


def load_sessions(root="data") -> list:
    """Every labelled session with its merged event timeline."""
    streams = read_streams(root)
    out = []
    for row in read_sessions(root):
        timeline = merge_streams(streams.get(row["home"], {}), row["session"], with_times=True)
        out.append(Session(row["session"], row["home"], row["split"], ACTIVITIES.index(row["activity"]),
                           [token for _, token in timeline], [t for t, _ in timeline], int(row["start"])))
    return out


def split_sessions(sessions):
    train = [s for s in sessions if s.split == "train"]
    val = [s for s in sessions if s.split == "val"]
    return train, val


class EncodedSet:
    """Sessions encoded once, as tensors: token ids and event times (lists of 1-D tensors), lengths, labels."""

    def __init__(self, sessions, vocab, max_events):
        self.ids = [torch.tensor(vocab.encode(s.events[:max_events]), dtype=torch.long) for s in sessions]
        self.times = [torch.tensor(s.times[:max_events]) for s in sessions]
        self.lengths = torch.tensor([len(x) for x in self.ids], dtype=torch.long)
        self.labels = torch.tensor([s.label for s in sessions], dtype=torch.long)

    def __len__(self):
        return len(self.ids)


def collate(ids, times=None, pad_id=0):
    """Right-pad lists of 1-D tensors to the longest: (tokens [B, L], lengths [B]), plus times [B, L] if given."""
    lengths = torch.tensor([len(x) for x in ids], dtype=torch.long)
    tokens = torch.full((len(ids), int(lengths.max())), pad_id, dtype=torch.long)
    for i, x in enumerate(ids):
        tokens[i, : len(x)] = x
    if times is None:
        return tokens, lengths
    stamps = torch.zeros(tokens.shape, dtype=times[0].dtype)
    for i, x in enumerate(times):
        stamps[i, : len(x)] = x
    return tokens, lengths, stamps


def iterate_batches(data: EncodedSet, batch_size, generator=None, shuffle=True):
    """(tokens, lengths, times, labels) batches over one epoch; the last partial batch is kept."""
    n = len(data)
    order = torch.randperm(n, generator=generator) if shuffle else torch.arange(n)
    for start in range(0, n, batch_size):
        idx = order[start:start + batch_size].tolist()
        tokens, lengths, times = collate([data.ids[i] for i in idx], [data.times[i] for i in idx])
        yield tokens, lengths, times, data.labels[idx]
