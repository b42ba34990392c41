import numpy as np

from checks import check_stations
from data import load_stations, split_holdout
from features import build_table


def test_exports_load_and_split():
    stations = load_stations("data")
    assert len(stations) == 6
    train, held = split_holdout(stations, 2)
    for tr, he in zip(train, held):
        assert len(he) == 2 * 168
        assert tr.time[-1] < he.time[0]


def test_checks_pass_with_warnings_only():
    warnings = check_stations(load_stations("data"), warn=lambda m: None)
    assert all(w.startswith("warning:") for w in warnings)


def test_features_are_finite_and_calendar_is_right():
    stations = load_stations("data")
    names = [s.name for s in stations]
    table = build_table(stations, names)
    assert np.isfinite(table.x).all()
    assert table.weekday[0] == 0 and table.hour[0] == 0  # every export starts on a Monday at 00:00
    assert set(np.unique(table.station)) == set(range(6))
