import numpy as np
import torch

from calibration import alert_threshold, expected_calibration_error, fit_temperature
from checks import feature_problems, series_problems
from data import load_exports


def test_exports_have_no_series_problems():
    assert series_problems(load_exports("data/exports")) == []


def test_repeated_start_is_reported():
    table = load_exports("data/exports")
    rows = np.flatnonzero((table.farms == table.farms[0]) & (table.collars == table.collars[0]))[:2]
    table.start_h[rows[1]] = table.start_h[rows[0]]
    assert any("repeated window starts" in p for p in series_problems(table))


def test_extreme_readings_are_reported():
    table = load_exports("data/exports").take(np.arange(200))
    table.features[3, 0] = 50.0
    assert any(p.startswith(table.feature_names[0]) for p in feature_problems(table))


def test_temperature_scaling_reduces_overconfidence():
    g = torch.Generator().manual_seed(0)
    targets = torch.randint(0, 3, (600,), generator=g)
    logits = torch.randn(600, 3, generator=g)
    logits[torch.arange(600), targets] += 1.0
    logits = 4.0 * logits
    t = fit_temperature(logits, targets)
    assert t > 1.5
    probs = torch.softmax(logits / t, dim=1)
    assert expected_calibration_error(probs, targets) < expected_calibration_error(torch.softmax(logits, 1), targets)
    assert 0.0 <= alert_threshold(probs, targets, 2) <= 1.0
