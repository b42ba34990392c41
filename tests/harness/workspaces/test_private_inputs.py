"""Answers integrity: a run grades from a private read-only copy whose hash is checked before every grading."""

import pytest

from harness.core.errors import IntegrityError
from harness.running.runner import run_scratch
from harness.workspaces.private_inputs import PrivateInputs


def test_private_copy_is_read_only_and_hashed(mini_root, tmp_path):
    inputs = PrivateInputs(mini_root, tmp_path)
    try:
        verifylib = inputs.root / "answers" / "verifylib.py"
        assert verifylib.read_text() == (mini_root / "answers" / "verifylib.py").read_text()
        assert (verifylib.stat().st_mode & 0o222) == 0 and set(inputs.sha256) == {"cases", "answers", "install"}
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


def test_a_planted_startup_hook_in_the_interpreter_is_detected(mini_root, tmp_path, monkeypatch):
    import site

    from harness.workspaces import private_inputs

    fake_site = tmp_path / "site-packages"
    fake_site.mkdir()
    monkeypatch.setattr(site, "getsitepackages", lambda: [str(fake_site)])
    inputs = PrivateInputs(mini_root, tmp_path)
    try:
        inputs.check()
        (fake_site / "zz-evil.pth").write_text("import os; os.environ['X'] = '1'\n")
        with pytest.raises(IntegrityError, match="start-up files"):
            inputs.check()
    finally:
        inputs.remove()
    assert private_inputs.install_fingerprint  # the check reads the live interpreter by default


def test_run_scratch_leaves_nothing(mini_root):
    with run_scratch(mini_root) as (inputs, work_dir):
        (work_dir / "leftover").write_text("x")
    assert not work_dir.exists()
