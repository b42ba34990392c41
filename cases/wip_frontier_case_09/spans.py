"""Tag spans: contiguous runs of one non-wall tag, and span-level matching of predictions to labels.

The integrity team counts defects, not frames: a labelled dent is found when the model tags at least
`min_overlap` of its frames as dent. These helpers turn per-frame tags into spans and count them.
"""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Span:
    start: int      # first frame
    end: int        # one past the last frame
    tag: int

    @property
    def length(self):
        return self.end - self.start


def find_spans(tags, skip=(0,)):
    """Every contiguous run of one tag not in `skip`, in frame order."""
    tags = np.asarray(tags)
    out = []
    if len(tags) == 0:
        return out
    change = np.flatnonzero(np.diff(tags)) + 1
    starts = np.r_[0, change]
    ends = np.r_[change, len(tags)]
    for a, b in zip(starts, ends):
        t = int(tags[a])
        if t not in skip:
            out.append(Span(int(a), int(b), t))
    return out


def overlap(span, pred):
    """Share of the span's frames that `pred` tags with the span's tag."""
    seg = np.asarray(pred[span.start:span.end])
    return float((seg == span.tag).mean()) if len(seg) else 0.0


def span_counts(label_tags, pred_tags, n_tags, min_overlap=0.5):
    """Per tag: (labelled spans, found spans, predicted spans, predicted spans matching a label)."""
    found = np.zeros(n_tags, dtype=np.int64)
    total = np.zeros(n_tags, dtype=np.int64)
    pred_total = np.zeros(n_tags, dtype=np.int64)
    pred_hit = np.zeros(n_tags, dtype=np.int64)
    for s in find_spans(label_tags):
        total[s.tag] += 1
        found[s.tag] += overlap(s, pred_tags) >= min_overlap
    for s in find_spans(pred_tags):
        pred_total[s.tag] += 1
        pred_hit[s.tag] += overlap(s, label_tags) >= min_overlap
    return total, found, pred_total, pred_hit


def span_lengths(tag_arrays, tag):
    """Lengths of every span of `tag` over several sequences."""
    return [s.length for t in tag_arrays for s in find_spans(t) if s.tag == tag]
