import shutil
import sys
from pathlib import Path

import pytest

from harness.core.cases import copy_shared_verifier_code

ROOT = Path(__file__).resolve().parent.parent
VALIDATION_TESTS = "tests/test_case_validation.py::"


def pytest_collection_finish(session):
    """Start the selected cases' validation in the background as soon as they are known (tests/validation_run.py)."""
    if session.config.option.collectonly:
        return
    ids = sorted({item.callspec.params["case_id"] for item in session.items
                  if item.nodeid.startswith(VALIDATION_TESTS) and hasattr(item, "callspec")})
    if ids:
        from tests import validation_run

        validation_run.start(ids)


def pytest_terminal_summary(terminalreporter):
    running = sys.modules.get("tests.validation_run")
    for line in running.summary() if running is not None else []:
        terminalreporter.write_line(line)


def pytest_sessionfinish(session):
    running = sys.modules.get("tests.validation_run")
    if running is not None:
        running.stop()


@pytest.fixture
def project_root() -> Path:
    return ROOT


@pytest.fixture
def mini_root(tmp_path) -> Path:
    """A throwaway project root holding a copy of case_01 and its answer, for breaking on purpose."""
    for part in ("cases", "answers"):
        shutil.copytree(ROOT / part / "case_01", tmp_path / part / "case_01")
    copy_shared_verifier_code(ROOT / "answers", tmp_path / "answers")
    return tmp_path
