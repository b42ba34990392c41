"""Verdicts shared within one validate call (harness/workspaces/verify_memo.py), and the pool's width control."""

import os
import threading
import time
from pathlib import Path

from harness.models import VerifierRun
from harness.validation import validate as V
from harness.workspaces import verify_memo


class Box:
    name, kernel = "none", None


def _tree(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "train.py").write_text("x = 1\n")
    (root / "pkg" / "m.py").write_text("y = 2\n")
    return root


def _counting(status: str, early: bool = False):
    calls = []

    def compute():
        calls.append(1)
        return VerifierRun(status=status, early_stop=early, reason=None if status == "pass" else "because")
    return compute, calls


def test_the_digest_sees_contents_links_and_empty_folders_but_not_bytecode(tmp_path):
    tree = _tree(tmp_path / "t")
    base = verify_memo.tree_digest(tree)
    (tree / "__pycache__").mkdir()
    (tree / "__pycache__" / "train.cpython-311.pyc").write_bytes(b"\0")
    assert verify_memo.tree_digest(tree) == base
    (tree / "train.py").write_text("x = 2\n")
    changed = verify_memo.tree_digest(tree)
    assert changed != base
    os.symlink("train.py", tree / "alias.py")
    linked = verify_memo.tree_digest(tree)
    assert linked != changed  # sha256_tree skips links; a verdict must not
    (tree / "alias.py").unlink()
    os.symlink("pkg/m.py", tree / "alias.py")
    assert verify_memo.tree_digest(tree) != linked
    (tree / "empty").mkdir()
    assert verify_memo.tree_digest(tree) != verify_memo.tree_digest(tree / "pkg")


def test_off_outside_validate(tmp_path):
    compute, calls = _counting("pass")
    tree = _tree(tmp_path / "t")
    verify_memo.verdict("case_01", tree, Box(), None, False, compute)
    verify_memo.verdict("case_01", tree, Box(), None, False, compute)
    assert len(calls) == 2 and not verify_memo.active()


def test_a_tree_verified_once_per_way_of_verifying(tmp_path):
    tree, twin = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    compute, calls = _counting("pass")
    with verify_memo.enabled(tmp_path / "memo"):
        first = verify_memo.verdict("case_01", tree, Box(), None, False, compute)
        again = verify_memo.verdict("case_01", twin, Box(), None, True, compute)  # same content elsewhere
        assert len(calls) == 1 and first == again
        verify_memo.verdict("case_02", tree, Box(), None, False, compute)  # another case
        verify_memo.verdict("case_01", tree, Box(), 1, False, compute)  # fewer seeds
        kernel = Box()
        kernel.kernel = "default"
        verify_memo.verdict("case_01", tree, kernel, None, False, compute)  # another kernel level
        assert len(calls) == 4
    assert not verify_memo.active()


def test_a_first_seed_fail_answers_a_full_request_and_errors_are_not_kept(tmp_path):
    tree = _tree(tmp_path / "a")
    early, early_calls = _counting("fail", early=True)
    error, error_calls = _counting("error")
    with verify_memo.enabled(tmp_path / "memo"):
        verify_memo.verdict("case_01", tree, Box(), None, True, early)
        out = verify_memo.verdict("case_01", tree, Box(), None, False, early)
        assert out.status == "fail" and len(early_calls) == 1
        other = _tree(tmp_path / "c")
        (other / "train.py").write_text("x = 3\n")
        verify_memo.verdict("case_01", other, Box(), None, False, error)
        verify_memo.verdict("case_01", other, Box(), None, False, error)
        assert len(error_calls) == 2


def test_two_workers_asking_for_one_tree_verify_it_once(tmp_path):
    tree = _tree(tmp_path / "a")
    calls = []

    def slow():
        calls.append(1)
        time.sleep(0.3)
        return VerifierRun(status="pass")
    with verify_memo.enabled(tmp_path / "memo"):
        threads = [threading.Thread(target=verify_memo.verdict, args=("case_01", tree, Box(), None, False, slow))
                   for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(calls) == 1


def _check(name: str):
    return V.Check(case_id="case_x", name=name, passed=True, detail="ran")


def test_a_pool_told_to_stop_reports_the_checks_it_never_started(tmp_path, monkeypatch):
    work = [("case_x", (_check, (f"c{i}",))) for i in range(4)]
    done: dict = {}
    V._run_pool(work, 2, lambda: 0, tmp_path / "memo", lambda i, checks: done.setdefault(i, checks))
    assert done == {}
    widths = iter([1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2])
    V._run_pool(work, 2, lambda: next(widths, 2), tmp_path / "memo", lambda i, checks: done.setdefault(i, checks))
    assert sorted(done) == [0, 1, 2, 3] and all(c[0].detail == "ran" for c in done.values())


def test_a_graded_sample_inside_validate_reuses_a_kept_verdict_but_still_runs_its_guard(tmp_path, monkeypatch):
    """The reference and null agents' samples are graded with a guard; inside validate their trees' verdicts
    are the gold's and the broken case's, kept once; the guard runs every time and a failing guard stops it."""
    from harness.core.errors import IntegrityError
    from harness.workspaces import verification

    runs = []
    monkeypatch.setattr(verification, "_verify_tree",
                        lambda *a, **k: runs.append(1) or VerifierRun(status="pass"))
    case = type("C", (), {"id": "case_01"})()
    tree, guarded = _tree(tmp_path / "t"), []
    with verify_memo.enabled(tmp_path / "memo"):
        verification.verify_tree(case, tree, Box())
        verification.verify_tree(case, tree, Box(), guard=lambda: guarded.append(1))
        assert runs == [1] and guarded == [1]

        def broken_guard():
            raise IntegrityError("answers changed")
        try:
            verification.verify_tree(case, tree, Box(), guard=broken_guard)
            raise AssertionError("a failing guard must stop a kept verdict being returned")
        except IntegrityError:
            pass
    verification.verify_tree(case, tree, Box(), guard=lambda: guarded.append(1))  # outside validate: verified
    assert runs == [1, 1]


def test_deciders_share_a_pristine_folder_per_case_and_kernel_only_inside_validate(tmp_path):
    assert verify_memo.pristine_folder("case_05", Box()) is None

    class Default(Box):
        kernel = "default"

    with verify_memo.enabled(tmp_path / "memo"):
        native = verify_memo.pristine_folder("case_05", Box())
        assert native.is_dir() and native == verify_memo.pristine_folder("case_05", Box())
        assert verify_memo.pristine_folder("case_05", Default()) != native
        assert verify_memo.pristine_folder("hard_case_05", Box()) != native


def test_pristine_memo_computes_once_per_name_and_always_without_a_folder(tmp_path, monkeypatch):
    """verifylib.pristine_memo: a value computed by one decider is the next one's, exactly (floats too)."""
    import importlib
    import sys

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[3] / "answers"))
    verifylib = importlib.import_module("verifylib")
    monkeypatch.setitem(verifylib._PRISTINE_CACHE, "dir", None)
    calls = []

    def compute():
        calls.append(1)
        return {"val": 0.1 + 0.2, "stdout": "step 1 | val 2.3\n"}

    assert verifylib.pristine_memo("default-seed0", compute) == compute()
    assert len(calls) == 2  # no folder: grading always computes
    monkeypatch.setitem(verifylib._PRISTINE_CACHE, "dir", tmp_path)
    first = verifylib.pristine_memo("default-seed0", compute)
    assert verifylib.pristine_memo("default-seed0", compute) == first and first["val"] == 0.1 + 0.2
    assert len(calls) == 3
    verifylib.pristine_memo("high_lr-seed0", compute)
    assert len(calls) == 4 and sorted(p.name for p in tmp_path.iterdir()) == ["default-seed0.json", "high_lr-seed0.json"]
    sys.modules.pop("verifylib", None)
