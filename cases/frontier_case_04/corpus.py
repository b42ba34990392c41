"""From exported bouts to model examples: each bout is encoded with its bird and song context."""

from dataclasses import dataclass

import numpy as np

from vocab import PAD


@dataclass
class Example:
    ids: np.ndarray          # [bird, context, s1..sn]
    bird: str
    cohort: str

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


def song_contexts(log, bouts):
    """Each bout's song context: 'directed' when its session's log entry says a female was presented,
    else 'undirected'."""
    female = {(r.booth, r.session): r.female for r in log.rows}
    return ["directed" if female[b.booth, b.session] else "undirected" for b in bouts]


def build_examples(bouts, log, vocab, cohorts):
    out = []
    for b, context in zip(bouts, song_contexts(log, bouts)):
        ids = np.asarray(vocab.encode(b.bird, context, b.syllables), dtype=np.int64)
        out.append(Example(ids, b.bird, cohorts.get(b.bird, "?")))
    return out


def pad_batch(examples):
    """One example per row, right-padded: inputs with PAD, targets with -100."""
    pairs = [e.pair() for e in examples]
    n = max(len(p[0]) for p in pairs)
    x = np.full((len(pairs), n), PAD, dtype=np.int64)
    y = np.full((len(pairs), n), -100, dtype=np.int64)
    for i, (inp, tgt) in enumerate(pairs):
        x[i, :len(inp)] = inp
        y[i, :len(tgt)] = tgt
    return x, y
