import numpy as np
import torch

from calibration import alarm_threshold, expected_calibration_error, fit_temperature
from checks import check_table, series_problems
from data import load_exports


def test_exports_pass_the_checks():
    assert check_table(load_exports("data/exports")) == []


def test_repeated_start_is_reported():
    table = load_exports("data/exports")
    wagon = table.wagons[0]
    rows = np.flatnonzero(table.wagons == wagon)[:2]
    table.pass_h[rows[1]] = table.pass_h[rows[0]]
    assert any("repeated pass hours" in p for p in series_problems(table))


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
    assert 0.0 <= alarm_threshold(probs, targets, 2) <= 1.0
