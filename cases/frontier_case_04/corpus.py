"""From exported bouts to model examples: each bout is encoded with its bird and song context."""

from dataclasses import dataclass

import numpy as np

from vocab import PAD

BANDS = ("band_1k", "band_2k", "band_3k", "band_4k", "band_6k", "band_8k")  # the segmenter's bands, dB
N_FEATS = 2 + len(BANDS)


@dataclass
class Example:
    ids: np.ndarray          # [bird, context, s1..sn]
    bird: str
    cohort: str
    feats: np.ndarray = None  # [n + 1, N_FEATS]: per input position, the predicted syllable's features


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


def relative_band_power(bands_db):
    """Each syllable's band energies (dB, one row per syllable) as log10 shares of its own total energy.

    The booths' microphones hang at a fixed place while the birds sing from whichever perch they are on, so
    one bird's level spans 20-30 dB over its sessions (the perch, not the note); every band moves with it.
    Shares of the syllable's own total keep the spectral shape (what the note is) and are the same whatever
    the distance."""
    power = 10.0 ** (np.asarray(bands_db, dtype=np.float64) / 10.0)
    return np.log10(power / power.sum(1, keepdims=True))


def syllable_features(measures, columns):
    """The model's per-syllable inputs, from the segmenter's measurements of a bout (one row per syllable):
    its length and the silence before it in seconds, then its relative band power. One row more in front
    for the prefix positions."""
    col = dict(zip(columns, np.asarray(measures, dtype=np.float64).T))
    on, off = col["onset"], col["offset"]
    before = np.concatenate([[0.0], on[1:] - off[:-1]])
    shape = relative_band_power(np.stack([col[b] for b in BANDS], 1))
    feats = np.column_stack([off - on, before, shape])
    return np.vstack([np.zeros((1, feats.shape[1])), feats]).astype(np.float32)


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
    tm = np.zeros((len(pairs), n, examples[0].feats.shape[1]), dtype=np.float32)
    for i, ((inp, tgt), e) in enumerate(zip(pairs, examples)):
        x[i, :len(inp)] = inp
        y[i, :len(tgt)] = tgt
        tm[i, :len(inp)] = e.feats
    return x, y, tm
