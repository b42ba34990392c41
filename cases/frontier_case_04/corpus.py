"""From exported bouts to model examples: each bout is encoded with its bird and song context."""

from dataclasses import dataclass

import numpy as np
import torch

from vocab import PAD

SAMPLE_RATE = 48_000  # the booth recorders


@dataclass
class Example:
    ids: np.ndarray          # [bird, context, s1..sn]
    bird: str
    cohort: str
    timing: np.ndarray = None  # [n + 1, 2]: per input position, the predicted syllable's length and gap


    @property
    def n_syllables(self):
        return len(self.ids) - 2

    def pair(self):
        """(inputs, targets): predict every syllable from what precedes it, prefix tokens included;
        the context token is given, not predicted."""
        inp = self.ids[:-1].copy()
        tgt = self.ids[1:].astype(np.int64).copy()
        tgt[0] = -100
        return inp, tgt


def syllable_timing(onsets, offsets):
    """Per input position, the length of the syllable it predicts and the silence before it, in seconds
    (the segmenter cuts a syllable before the classifier names it; the two prefix positions carry zeros
    for the gap)."""
    on = torch.tensor(onsets) / SAMPLE_RATE
    off = torch.tensor(offsets) / SAMPLE_RATE
    gap = torch.cat([torch.zeros(1), on[1:] - off[:-1]])
    feats = torch.stack([off - on, gap], 1)
    return torch.cat([torch.zeros(1, 2), feats]).numpy()


def song_contexts(log, bouts):
    """Each bout's song context: 'directed' when its session's log entry says a female was presented,
    else 'undirected'."""
    female = {(r.booth, r.session): r.female for r in log.rows}
    return ["directed" if female[b.booth, b.session] else "undirected" for b in bouts]


def build_examples(bouts, log, vocab, cohorts):
    out = []
    for b, context in zip(bouts, song_contexts(log, bouts)):
        ids = np.asarray(vocab.encode(b.bird, context, b.syllables), dtype=np.int64)
        out.append(Example(ids, b.bird, cohorts.get(b.bird, "?"), syllable_timing(b.onsets, b.offsets)))
    return out


def pad_batch(examples):
    """One example per row, right-padded: inputs with PAD, targets with -100, timing with zeros."""
    pairs = [e.pair() for e in examples]
    n = max(len(p[0]) for p in pairs)
    x = np.full((len(pairs), n), PAD, dtype=np.int64)
    y = np.full((len(pairs), n), -100, dtype=np.int64)
    tm = np.zeros((len(pairs), n, 2), dtype=np.float32)
    for i, ((inp, tgt), e) in enumerate(zip(pairs, examples)):
        x[i, :len(inp)] = inp
        y[i, :len(tgt)] = tgt
        tm[i, :len(inp)] = e.timing
    return x, y, tm
