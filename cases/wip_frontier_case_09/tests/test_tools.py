import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from config import Config  # noqa: E402
from report import read_metrics, write_metrics  # noqa: E402
from tools.check_exports import problems  # noqa: E402
from tools.summarize_runs import summarize  # noqa: E402
from tools.tag_stats import stats  # noqa: E402
from export import load_segments, read_manifest  # noqa: E402


def test_exports_are_clean():
    assert problems(ROOT / "data") == []


def test_summary_covers_every_run():
    rows = summarize(ROOT / "data")
    assert len(rows) == 8
    assert all(counts.sum() == frames for _, _, _, frames, counts in rows)


def test_tag_stats_shares_sum_to_one():
    segments = load_segments(ROOT / "data", read_manifest(ROOT / "data"))
    st = stats(segments[:40])
    assert abs(sum(v["share"] for v in st.values()) - 1.0) < 1e-9
    assert st["weld"]["spans"] > 0


def test_metrics_round_trip(tmp_path):
    conf = np.array([[50, 1, 0, 1], [0, 9, 0, 0], [2, 0, 6, 0], [3, 0, 0, 7]])
    history = [{"epoch": 1, "step": 10, "train_loss": 0.5, "loss": 0.4, "acc": 0.9, "confusion": conf}]
    path = write_metrics(tmp_path, history, Config())
    rec = read_metrics(tmp_path)
    assert json.loads(path.read_text()) == rec
    assert rec["confusion"] == conf.tolist()
    assert abs(rec["recall"]["dent"] - 0.75) < 1e-12
