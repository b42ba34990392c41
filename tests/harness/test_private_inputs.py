"""Answers integrity: a run grades from a private read-only copy whose hash is checked before every grading."""

import pytest

from harness.errors import IntegrityError
from harness.private_inputs import PrivateInputs
from harness.runner import run_scratch


def test_private_copy_is_read_only_and_hashed(mini_root, tmp_path):
    inputs = PrivateInputs(mini_root, tmp_path)
    try:
        verifylib = inputs.root / "answers" / "verifylib.py"
        assert verifylib.read_text() == (mini_root / "answers" / "verifylib.py").read_text()
        assert (verifylib.stat().st_mode & 0o222) == 0 and set(inputs.sha256) == {"cases", "answers"}
        inputs.check()
        (mini_root / "answers" / "verifylib.py").write_text("# edited in the checkout mid-run\n")
        inputs.check()  # the checkout is not what is graded
        verifylib.chmod(0o644)
        verifylib.write_text(verifylib.read_text() + "\n# tampered\n")
        with pytest.raises(IntegrityError, match="private copy of answers/ changed"):
            inputs.check()
    finally:
        inputs.remove()
    assert not inputs.root.exists()


def test_private_cases_are_checked_too(mini_root, tmp_path):
    inputs = PrivateInputs(mini_root, tmp_path)
    try:
        target = inputs.root / "cases" / "case_01" / "model.py"
        target.chmod(0o644)
        target.write_text("# different base for every later diff\n")
        with pytest.raises(IntegrityError, match="cases/"):
            inputs.check()
    finally:
        inputs.remove()


def test_run_scratch_leaves_nothing(mini_root):
    with run_scratch(mini_root) as (inputs, work_dir):
        (work_dir / "leftover").write_text("x")
    assert not work_dir.exists()
