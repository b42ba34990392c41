import numpy as np

from catalog import load_exports
from response import StationResponse, read_stations


def test_epochs_sorted_and_complete():
    epochs = read_stations("data/stations.csv")
    table = load_exports("data/exports")
    assert set(table.stations) <= set(epochs)
    for rows in epochs.values():
        assert [r[0] for r in rows] == sorted(r[0] for r in rows)


def test_each_record_uses_its_epoch():
    table = load_exports("data/exports")
    resp = StationResponse(table, "data/stations.csv")
    epochs = read_stations("data/stations.csv")
    for i in [0, len(table) // 2, len(table) - 1]:
        rows = [r for r in epochs[table.stations[i]] if r[0] <= table.t_hours[i]]
        assert abs(resp.log_sensitivity[i] - rows[-1][1]) < 1e-6


def test_shape_is_checked():
    table = load_exports("data/exports")
    resp = StationResponse(table, "data/stations.csv")
    try:
        resp(np.zeros((3, 16)))
    except ValueError:
        return
    raise AssertionError("expected a shape error")
