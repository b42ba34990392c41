import numpy as np
import torch

from alerts import level_for
from calibration import expected_calibration_error, fit_temperature
from report import write_report
from tools.station_health import longest_silence, weekly_counts
from tools.summarize_catalog import review_agreement


def test_alert_levels():
    classes = ("volcano_tectonic", "long_period", "tremor", "rockfall", "noise")
    assert level_for({"noise": 5}, classes) == "normal"
    assert level_for({"long_period": 30, "noise": 100}, classes) == "advisory"
    assert level_for({"rockfall": 12}, classes) == "watch"


def test_weekly_counts_and_silence():
    t = np.array([1.0, 2.0, 200.0])
    assert list(weekly_counts(t, 2)) == [2, 1]
    assert longest_silence(t) == 198.0


def test_temperature_reduces_nll():
    torch.manual_seed(0)
    x = torch.randn(200, 3)
    y = x.argmax(1)

    class Sharp(torch.nn.Module):
        def forward(self, x):
            return 8.0 * x

    loader = [(x[:100], y[:100]), (x[100:], y[100:])]
    t, before, after = fit_temperature(Sharp(), loader)
    assert after <= before + 1e-9 and t > 0
    assert 0.0 <= expected_calibration_error(8.0 * x, y) <= 1.0


def test_report_and_review(tmp_path):
    p = write_report(tmp_path / "r.md", "t", np.eye(2, dtype=int), ("a", "b"), {"acc": 1.0})
    assert "| a | 1 | 0 |" in p.read_text()
    agree = review_agreement("data/review_april.csv")
    assert all(0.0 <= share <= 1.0 for _, share in agree.values())
