import numpy as np

from catalog import CLASSES, load_exports
from checks import check_table


def test_exports_load():
    table = load_exports("data/exports")
    assert len(table) == len(table.bands) == len(table.labels)
    assert table.bands.shape[1] == 16
    assert set(np.unique(table.labels)) <= set(range(len(CLASSES)))


def test_table_checks_only_close_picks():
    problems = check_table(load_exports("data/exports"))
    assert all("within" in p for p in problems)


def test_take_keeps_rows_together():
    table = load_exports("data/exports")
    idx = np.array([5, 0, 17])
    part = table.take(idx)
    assert list(part.record_ids) == list(table.record_ids[idx])
    assert np.array_equal(part.bands, table.bands[idx])
