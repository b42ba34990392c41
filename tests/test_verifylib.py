"""answers/verifylib.py helpers that several cases' measuring halves share."""

import importlib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "answers"))
from verifylib import workspace_holders  # noqa: E402


@pytest.fixture
def modules(tmp_path, monkeypatch):
    """A workspace with a defining module and an importer, and an outside module that also holds the function."""
    ws, outside = tmp_path / "ws", tmp_path / "elsewhere"
    ws.mkdir()
    outside.mkdir()
    (ws / "wh_data.py").write_text("def iterate_batches():\n    return 1\n")
    (ws / "wh_train.py").write_text("from wh_data import iterate_batches\n")
    (ws / "wh_other.py").write_text("iterate_batches = None\n")
    (outside / "wh_outside.py").write_text("from wh_data import iterate_batches\n")
    monkeypatch.chdir(ws)
    monkeypatch.syspath_prepend(str(outside))
    monkeypatch.syspath_prepend(str(ws))
    names = ["wh_data", "wh_train", "wh_other", "wh_outside"]
    loaded = {n: importlib.import_module(n) for n in names}
    yield loaded
    for n in names:
        sys.modules.pop(n, None)


def test_holders_are_the_workspace_modules_that_hold_the_function(modules):
    original = modules["wh_data"].iterate_batches
    got = workspace_holders("iterate_batches", original)
    assert {m.__name__ for m in got} == {"wh_data", "wh_train"}


def test_excluded_modules_are_left_out(modules):
    original = modules["wh_data"].iterate_batches
    got = workspace_holders("iterate_batches", original, exclude=(modules["wh_data"],))
    assert [m.__name__ for m in got] == ["wh_train"]
