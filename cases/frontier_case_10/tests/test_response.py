import numpy as np

from pathlib import Path

from catalog import load_exports, read_export
from response import StationResponse, read_stations


def test_epochs_sorted_and_complete():
    epochs = read_stations("data/stations.csv")
    table = load_exports("data/exports")
    assert set(table.stations) <= set(epochs)
    for rows in epochs.values():
        assert [r[0] for r in rows] == sorted(r[0] for r in rows)


def test_each_record_uses_its_epoch():
    resp = StationResponse("data/stations.csv", "data/exports")
    epochs = read_stations("data/stations.csv")
    records = [r for p in sorted(Path("data/exports").glob("*.csv")) for r in read_export(p)[1]]
    assert len(records) == len(resp)
    for i in [0, len(records) // 2, len(records) - 1]:
        rows = [e for e in epochs[records[i][1]] if e[0] <= float(records[i][2])]
        assert abs(resp.log_sensitivity[i] - rows[-1][1]) < 1e-6


def test_shape_is_checked():
    resp = StationResponse("data/stations.csv", "data/exports")
    try:
        resp(np.zeros((3, 16)))
    except ValueError:
        return
    raise AssertionError("expected a shape error")
