"""A workspace is a fresh copy outside the repository with nothing from answers/."""

from harness.cases import load_case
from harness.hashing import iter_files
from harness.workspace import apply_patch, create_workspace, diff_trees, remove_workspace


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
