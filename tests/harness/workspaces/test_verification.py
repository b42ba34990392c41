"""The verifier as grading runs it: measure in the sandbox, harvest, decide without the workspace."""

import json
import os
import shutil

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.workspaces.verification import harvest
from tests.builders.llm_helpers import CASE01


def test_harvest_takes_only_regular_files_with_expected_names(tmp_path):
    out, clean = tmp_path / "out", tmp_path / "clean"
    out.mkdir()
    (out / "seed_0.json").write_text("{}")
    (out / "seed_0__model.pt").write_bytes(b"x")
    (out / "notes.txt").write_text("no")
    os.symlink("/etc/passwd", out / "seed_1.json")
    os.mkfifo(out / "seed_2.json")
    skipped = harvest(out, clean)
    assert sorted(p.name for p in clean.iterdir()) == ["seed_0.json", "seed_0__model.pt"]
    assert {s.path for s in skipped} == {"notes.txt", "seed_1.json", "seed_2.json"}


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def test_verify_exit_2_when_the_verifier_cannot_run(mini_root, tmp_path, monkeypatch):
    monkeypatch.setenv("ML_DEBUG_BENCH_ROOT", str(mini_root))
    (mini_root / "answers" / "case_01" / "decide.py").write_text("raise SystemExit(3)\n")
    (mini_root / "answers" / "case_01" / "measure.py").write_text("pass\n")
    res = invoke("verify", "case_01", CASE01)
    assert res.exit_code == 2, res.output
    verdict = json.loads(res.stdout)
    assert verdict["status"] == "error" and "could not run" in verdict["reason"]
    assert verdict["kernel"]["level"] == verdict["kernel"]["aten_cpu_capability"] or \
        verdict["kernel"]["level"] == verdict["kernel"]["native"]
    assert "default" in verdict["kernel"]["supported"]


def test_verify_runs_under_the_kernel_asked_for_and_refuses_one_the_cpu_lacks(mini_root, monkeypatch):
    monkeypatch.setenv("ML_DEBUG_BENCH_ROOT", str(mini_root))
    (mini_root / "answers" / "case_01" / "decide.py").write_text("raise SystemExit(3)\n")
    (mini_root / "answers" / "case_01" / "measure.py").write_text("pass\n")
    res = invoke("verify", "case_01", CASE01, "--kernel", "default")
    assert json.loads(res.stdout)["kernel"]["level"] == "default"
    assert json.loads(res.stdout)["kernel"]["aten_cpu_capability"] == "default"
    res = invoke("verify", "case_01", CASE01, "--kernel", "avx9")
    assert res.exit_code == 2 and "unknown kernel level 'avx9'" in res.output


def test_verify_missing_entry_point_is_a_failed_check(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(CASE01, tree)
    text = (tree / "train.py").read_text().replace("def train(cfg):", "def fit(cfg):").replace("train(cfg)\n", "fit(cfg)\n")
    (tree / "train.py").write_text(text)
    res = invoke("verify", "case_01", tree)
    assert res.exit_code == 1, res.output
    verdict = json.loads(res.stdout)
    assert verdict["status"] == "fail" and "entry point train.train missing" in verdict["reason"]


def test_verify_refuses_a_missing_folder(tmp_path):
    res = invoke("verify", "case_01", tmp_path / "nope")
    assert res.exit_code == 2 and "is not a folder" in res.output


@pytest.mark.slow
def test_verify_fails_broken_and_passes_gold(tmp_path, project_root):
    assert invoke("verify", "case_01", CASE01).exit_code == 1
    tree = tmp_path / "gold"
    shutil.copytree(CASE01, tree)
    os.system(f"cd {tree} && git apply {project_root / 'answers/case_01/gold.patch'}")
    res = invoke("verify", "case_01", tree)
    assert res.exit_code == 0, res.output
    verdict = json.loads(res.stdout)
    assert verdict["status"] == "pass" and all(r["passed"] for r in verdict["result"]["checks"])
    assert {r["source"] for r in verdict["result"]["checks"]} == {"recomputed", "reported", "readme_run"}
