import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from spans import Span, find_spans, overlap, span_counts, span_lengths  # noqa: E402


def test_find_spans_skips_wall():
    tags = np.array([0, 0, 2, 2, 2, 0, 3, 3, 0, 1])
    assert find_spans(tags) == [Span(2, 5, 2), Span(6, 8, 3), Span(9, 10, 1)]


def test_find_spans_empty_and_all_wall():
    assert find_spans(np.array([], dtype=int)) == []
    assert find_spans(np.zeros(7, dtype=int)) == []


def test_overlap_share():
    pred = np.array([0, 0, 2, 0, 2, 0])
    assert overlap(Span(2, 5, 2), pred) == 2 / 3


def test_span_counts_found_and_confirmed():
    labels = np.array([0, 3, 3, 3, 0, 0, 2, 2, 0, 0])
    pred = np.array([0, 3, 3, 0, 0, 0, 0, 0, 3, 3])
    total, found, pred_total, pred_hit = span_counts(labels, pred, 4)
    assert total.tolist() == [0, 0, 1, 1]
    assert found.tolist() == [0, 0, 0, 1]
    assert pred_total.tolist() == [0, 0, 0, 2]
    assert pred_hit.tolist() == [0, 0, 0, 1]


def test_span_lengths():
    assert span_lengths([np.array([3, 3, 0, 3]), np.array([0, 3, 3, 3])], 3) == [2, 1, 3]
