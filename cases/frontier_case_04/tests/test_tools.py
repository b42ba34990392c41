import json

from exports import Bout
from tools.compare_runs import compare
from tools.syllable_stats import conditional_entropy, per_bird, top_successor_share, transition_counts


def test_fixed_song_has_zero_entropy():
    bouts = [Bout("A", 1, i, "Y01", tuple("abcabc")) for i in range(3)]
    counts = transition_counts(bouts)
    assert conditional_entropy(counts) == 0.0
    assert top_successor_share(counts) == 1.0


def test_per_bird_rows():
    bouts = [Bout("A", 1, 1, "Y01", tuple("abab")), Bout("A", 1, 2, "J01", tuple("abba"))]
    rows = {r["bird"]: r for r in per_bird(bouts)}
    assert rows["Y01"]["entropy_bits"] < rows["J01"]["entropy_bits"]


def test_compare_runs(tmp_path):
    a = [{"epoch": 1, "acc": 0.5, "loss": 1.0}, {"epoch": 2, "acc": 0.6, "loss": 0.9}]
    b = [{"epoch": 1, "acc": 0.55, "loss": 0.95}]
    (tmp_path / "h.json").write_text(json.dumps(a))
    rows = compare(a, b)
    assert len(rows) == 1 and abs(rows[0][1]["acc"][2] - 0.05) < 1e-12
