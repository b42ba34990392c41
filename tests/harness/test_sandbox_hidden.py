"""The default hidden set covers the seed benchmark's key beside the repository."""

import shutil

import pytest

from harness.sandbox import BwrapSandbox, bwrap_problem, default_hidden


def test_default_hidden_includes_repo_results_shared_and_env(tmp_path, monkeypatch):
    repo, shared, extra = tmp_path / "repo", tmp_path / "shared", tmp_path / "secret"
    for p in (repo, shared, extra):
        p.mkdir()
    monkeypatch.setenv("ML_DEBUG_BENCH_HIDE", str(extra))
    hidden = default_hidden(repo, repo / "results")
    assert {repo, repo / "results", shared.resolve(), extra} <= set(hidden)


@pytest.mark.skipif(bwrap_problem(shutil.which("bwrap")) is not None, reason="bubblewrap unavailable")
def test_shared_folder_beside_repo_is_invisible(tmp_path):
    repo, shared, ws = tmp_path / "repo", tmp_path / "shared", tmp_path / "ws"
    for p in (repo, shared, ws):
        p.mkdir()
    (shared / "key.txt").write_text("the answer")
    box = BwrapSandbox(shutil.which("bwrap"), hide=default_hidden(repo, repo / "results"))
    res = box.run(f"cat {shared}/key.txt; ls -A {shared} | wc -l", ws, timeout=30, output_cap=4096)
    assert "the answer" not in res.stdout
    assert res.stdout.strip().splitlines()[-1] == "0"
