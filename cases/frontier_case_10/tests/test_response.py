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
    assert len(resp) == len(table)
    expected = [[e for e in epochs[s] if e[0] <= t][-1][1] for s, t in zip(table.stations, table.t_hours)]
    assert np.allclose(np.sort(resp.log_sensitivity), np.sort(np.array(expected)))


def test_shape_is_checked():
    table = load_exports("data/exports")
    resp = StationResponse(table, "data/stations.csv")
    try:
        resp(np.zeros((3, 16)))
    except ValueError:
        return
    raise AssertionError("expected a shape error")
