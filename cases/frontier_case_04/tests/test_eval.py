import numpy as np
import torch

from corpus import N_FEATS, Example
from evaluate import by_bird, by_length
from generate import sample
from metrics import score_examples, summarize
from models import SongFormer
from vocab import Vocab


def _examples():
    return [Example(np.array([13, 23] + [1 + (i % 12) for i in range(n)]), bird, cohort, np.zeros((n + 1, N_FEATS), np.float32))
            for n, bird, cohort in ((3, "Y01", "2024a"), (9, "J01", "2025b"), (20, "Y01", "2024a"))]


def test_scores_and_groups():
    torch.manual_seed(0)
    model = SongFormer(25, 25, dim=16, heads=2, layers=1, max_len=64)
    ex = _examples()
    rows = score_examples(model, ex)
    assert rows.shape == (3, 3)
    assert list(rows[:, 0]) == [3, 9, 20]
    out = summarize(rows, ex)
    assert 0.0 <= out["acc"] <= 1.0 and set(out) >= {"acc_short", "acc_cohort_2025b"}
    assert set(by_bird(rows, ex)) == {"Y01", "J01"}
    assert by_length(rows, ex)["long"][1] == 1


def test_sample_only_syllables():
    torch.manual_seed(0)
    vocab = Vocab(list("abcdefghijkl"), ["Y01", "J01"])
    model = SongFormer(vocab.size, vocab.size, dim=16, heads=2, layers=1, max_len=64).eval()
    text = sample(model, vocab, "Y01", "directed", 8, generator=torch.Generator().manual_seed(1))
    assert len(text.split()) == 8 and all(s in "abcdefghijkl" for s in text.split())
