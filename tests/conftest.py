import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def project_root() -> Path:
    return ROOT


@pytest.fixture
def mini_root(tmp_path) -> Path:
    """A throwaway project root holding a copy of case_01 and its answer, for breaking on purpose."""
    for part in ("cases", "answers"):
        shutil.copytree(ROOT / part / "case_01", tmp_path / part / "case_01")
    shutil.copy(ROOT / "answers" / "verifylib.py", tmp_path / "answers" / "verifylib.py")
    return tmp_path
