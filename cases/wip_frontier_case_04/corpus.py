"""From exported bouts to model examples: each bout is encoded with its bird and song context."""

from dataclasses import dataclass

import numpy as np
import torch

from vocab import PAD

SAMPLE_RATE = 48_000  # the booth recorders
N_FEATS = 5


@dataclass
class Example:
    ids: np.ndarray          # [bird, context, s1..sn]
    bird: str
    cohort: str
    feats: np.ndarray = None  # [n + 1, N_FEATS]: per input position, the predicted syllable's measurements


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


def syllable_features(measures, columns):
    """The model's per-syllable inputs, derived from the segmenter's measurements of a bout (one row per
    syllable): its length and the silence before it in seconds, peak frequency in kHz, level against the
    bout's median in tens of dB, spectral entropy. One row more in front for the prefix positions."""
    col = dict(zip(columns, measures.unbind(1)))
    on, off = col["onset"], col["offset"]
    before = torch.cat([torch.zeros(1), on[1:] - off[:-1]])
    level = col["level_db"] - col["level_db"].median()
    feats = torch.stack([(off - on) / SAMPLE_RATE, before / SAMPLE_RATE, col["peak_hz"] / 1000,
                         level / 10, col["entropy"]], 1)
    return torch.cat([torch.zeros(1, N_FEATS), feats]).numpy()


def song_contexts(log, bouts):
    """Each bout's song context: 'directed' when its session's log entry says a female was presented,
    else 'undirected'."""
    female = {(r.booth, r.session): r.female for r in log.rows}
    return ["directed" if female[b.booth, b.session] else "undirected" for b in bouts]


def build_examples(bouts, log, vocab, cohorts):
    out = []
    for b, context in zip(bouts, song_contexts(log, bouts)):
        ids = np.asarray(vocab.encode(b.bird, context, b.syllables), dtype=np.int64)
        out.append(Example(ids, b.bird, cohorts.get(b.bird, "?"), syllable_features(b.measures, b.columns)))
    return out


def pad_batch(examples):
    """One example per row, right-padded: inputs with PAD, targets with -100, features with zeros."""
    pairs = [e.pair() for e in examples]
    n = max(len(p[0]) for p in pairs)
    x = np.full((len(pairs), n), PAD, dtype=np.int64)
    y = np.full((len(pairs), n), -100, dtype=np.int64)
    tm = np.zeros((len(pairs), n, N_FEATS), dtype=np.float32)
    for i, ((inp, tgt), e) in enumerate(zip(pairs, examples)):
        x[i, :len(inp)] = inp
        y[i, :len(tgt)] = tgt
        tm[i, :len(inp)] = e.feats
    return x, y, tm
