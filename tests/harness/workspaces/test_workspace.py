"""A workspace is a fresh copy outside the repository with nothing from answers/."""

from harness.core.cases import load_case
from harness.core.hashing import iter_files
from harness.workspaces.workspace import apply_patch, create_workspace, diff_trees, remove_workspace


def test_workspace_has_nothing_from_answers(project_root):
    case = load_case(project_root, "case_01")
    ws = create_workspace(case.case_dir)
    try:
        assert project_root not in ws.parents
        names = {p.relative_to(ws).as_posix() for p in iter_files(ws)}
        assert names == {p.relative_to(case.case_dir).as_posix() for p in iter_files(case.case_dir)}
        assert not (ws / ".git").exists()
        answer_names = {p.name for p in case.answer_dir.iterdir()}
        for p in ws.rglob("*"):
            assert p.name not in answer_names - {"README.md"}
            if p.is_file():
                text = p.read_text(encoding="utf-8", errors="replace")
                assert case.key.canary not in text
                assert "answers/" not in text
    finally:
        remove_workspace(ws)
    assert not ws.exists()


def test_diff_round_trips_through_git_apply(project_root, tmp_path):
    case = load_case(project_root, "case_01")
    ws = create_workspace(case.case_dir)
    try:
        apply_patch(ws, case.gold_patch_path)
        (ws / "notes.txt").write_text("new file\n")
        diff = diff_trees(case.case_dir, ws)
        assert "b/model.py" in diff and "b/notes.txt" in diff
        fresh = create_workspace(case.case_dir)
        try:
            apply_patch(fresh, diff)
            assert (fresh / "model.py").read_text() == (ws / "model.py").read_text()
            assert (fresh / "notes.txt").read_text() == "new file\n"
        finally:
            remove_workspace(fresh)
    finally:
        remove_workspace(ws)


def test_copy_keeps_inner_links_and_skips_everything_else(tmp_path):
    import os

    from harness.workspaces.workspace import copy_workspace

    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.py").write_text("x = 1\n")
    os.symlink("a.py", src / "inner")          # stays inside: kept as a link
    os.symlink("../a.py", src / "sub" / "up")  # inside too, via ..
    os.symlink("/dev/zero", src / "zero")      # out of the tree
    os.symlink("../../etc", src / "sub" / "escape")
    os.symlink("/nonexistent", src / "dangling")
    os.mkfifo(src / "pipe")
    ws, report = copy_workspace(src, parent=tmp_path)
    try:
        assert os.readlink(ws / "inner") == "a.py" and (ws / "sub" / "up").read_text() == "x = 1\n"
        skipped = {(s.path, s.kind) for s in report.skipped}
        assert skipped == {("zero", "symlink"), ("sub/escape", "symlink"), ("dangling", "symlink"), ("pipe", "fifo")}
        assert not any((ws / n).exists() or (ws / n).is_symlink() for n in ("zero", "dangling", "pipe"))
    finally:
        remove_workspace(ws)


def test_copy_cap_skips_and_records(tmp_path):
    from harness.workspaces.workspace import copy_workspace

    src = tmp_path / "src"
    src.mkdir()
    for i in range(3):
        (src / f"f{i}.bin").write_bytes(b"x" * 1000)
    ws, report = copy_workspace(src, parent=tmp_path, max_bytes=2500)
    assert report.bytes_copied == 2000 and [s.path for s in report.skipped] == ["f2.bin"]
    assert "copy cap" in report.skipped[0].reason
    remove_workspace(ws)


def test_diff_never_reads_through_links_or_fifos_and_is_capped(tmp_path):
    import os

    before, after = tmp_path / "a", tmp_path / "b"
    before.mkdir()
    after.mkdir()
    (before / "keep.py").write_text("same\n")
    (after / "keep.py").write_text("same\n")
    os.symlink("/dev/zero", after / "zero")
    os.mkfifo(after / "pipe")
    (after / "big.py").write_text("y = 2\n" * 200_000)
    diff = diff_trees(before, after, max_bytes=10_000)
    assert "new file mode 120000" in diff and "+/dev/zero" in diff
    assert "pipe" not in diff
    assert "Binary or large file big.py differs" in diff or "diff cut at" in diff
    assert len(diff) < 11_000
