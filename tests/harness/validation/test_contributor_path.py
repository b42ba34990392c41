"""The contributor's path (issue 23): new-case, validate --only and its stdout report, verify --patch, the frontier
tier, stray artifacts, logged_rows on non-finite values and decide_main without README-run checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.core.cases import copy_shared_verifier_code, find_root, list_case_ids, load_case, tier_of
from harness.core.errors import ConfigError
from harness.validation.check_select import (
    check_patterns,
    job_names,
    matches,
    parse_only,
    sample_names,
    sampled_kind,
    select_jobs,
)
from harness.validation.hard_checks import check_hard_construct_hits
from harness.validation.hygiene import PLACEHOLDER, check_placeholders, check_stray_artifacts
from harness.validation.scaffold import case_id_for, new_case
from harness.validation.validate import check_names, validation_jobs

ROOT = find_root()
REPO = Path(__file__).resolve().parents[3]


def scaffold_root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "cases").mkdir(parents=True)
    (root / "answers").mkdir()
    copy_shared_verifier_code(ROOT / "answers", root / "answers")
    return root


def cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ML_DEBUG_BENCH_ROOT": str(root), "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=600)


# --- new-case -----------------------------------------------------------------------------------------------------


def test_new_case_writes_every_file_and_the_case_loads_with_its_placeholders_named(tmp_path):
    root = scaffold_root(tmp_path)
    case_id, written = new_case(root, "case_11")
    rel = {p.relative_to(root).as_posix() for p in written}
    assert {"cases/case_11/README.md", "cases/case_11/case.toml", "cases/case_11/train.py", "answers/case_11/key.toml",
            "answers/case_11/gold.patch", "answers/case_11/measure.py", "answers/case_11/decide.py",
            "answers/case_11/symptoms.toml", "answers/case_11/reference.toml",
            "answers/case_11/fixes/fixes.toml"} <= rel
    case = load_case(root, case_id)
    assert case.key.canary.startswith("MLDB-CANARY-case_11-") and case.corpus == ()
    chk = check_placeholders(case)
    assert not chk.passed and PLACEHOLDER in chk.detail
    for name in ("cases/case_11/README.md", "answers/case_11/gold.patch", "answers/case_11/key.toml"):
        assert name in chk.detail
    # every key field is written out, commented (answers/README.md documents them)
    key_text = (root / "answers/case_11/key.toml").read_text()
    for field in ("instrumentation", "oracle_symbols", "legitimate_guards", "gold_patch", "verifier_timeout_seconds"):
        assert field in key_text
    with pytest.raises(ConfigError, match="already exists"):
        new_case(root, "case_11")
    # filled in, the check passes
    for path in written:
        path.write_text(path.read_text().replace(PLACEHOLDER, "filled"))
    assert check_placeholders(load_case(root, case_id)).passed


def test_scaffolded_train_py_runs_and_prints_the_logged_shape(tmp_path):
    root = scaffold_root(tmp_path)
    new_case(root, "case_11")
    res = subprocess.run([sys.executable, "train.py"], cwd=root / "cases" / "case_11", capture_output=True, text=True,
                         timeout=300, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert res.returncode == 0, res.stderr
    sys.path.insert(0, str(ROOT / "answers"))
    try:
        from verifylib import logged_rows
    finally:
        sys.path.remove(str(ROOT / "answers"))
    rows = logged_rows(res.stdout)
    assert sorted(rows) == [0, 50, 100, 150, 200] and all("loss" in r for r in rows.values())


def test_tiers_of_new_cases(tmp_path):
    assert case_id_for("case_11", "hard") == "hard_case_11"
    assert case_id_for("case_11", "frontier") == "frontier_case_11"
    assert case_id_for("frontier_case_11", "standard") == "frontier_case_11"
    with pytest.raises(ConfigError, match="is a hard id"):
        case_id_for("hard_case_11", "frontier")
    with pytest.raises(ConfigError, match="not a case id"):
        case_id_for("case_1", "standard")
    assert tier_of("frontier_case_01") == "frontier"
    root = scaffold_root(tmp_path)
    new_case(root, "case_12", "frontier")
    new_case(root, "case_12", "hard")
    assert list_case_ids(root, "frontier") == ["frontier_case_12"]
    assert list_case_ids(root, "all") == ["hard_case_12", "frontier_case_12"]
    frontier = load_case(root, "frontier_case_12")
    assert frontier.key.hardness is not None
    chk = check_hard_construct_hits(frontier)  # the grep-based check is reported, not required, on the frontier
    assert chk.passed and "not met; reported, not required on the frontier tier" in chk.detail
    assert not check_hard_construct_hits(load_case(root, "hard_case_12")).passed


# --- validate --only and the report on stdout --------------------------------------------------------------------


def test_only_selects_by_whole_name_or_prefix_before_the_colon():
    case = load_case(ROOT, "case_01")
    jobs = validation_jobs(case, ROOT, None)
    names = check_names(case, ROOT, None)
    picked = [n for job in select_jobs(jobs, ["corpus_reject", "corpus_accept:alt_log_softmax_output",
                                              "verifier_passes_on_gold"]) for n in job_names(job)]
    assert "verifier_passes_on_gold" in picked and "corpus_accept:alt_log_softmax_output" in picked
    assert {n for n in picked if n.startswith("corpus_accept")} == {"corpus_accept:alt_log_softmax_output"}
    assert {n for n in names if n.startswith("corpus_reject:")} <= set(picked)
    assert "leak_scan" not in picked and "reference_agent_scores_pass" not in picked
    assert matches("corpus_reject:x", "corpus_reject") and not matches("corpus_reject:x", "corpus")
    assert parse_only(" leak_scan, corpus_size ,") == ["leak_scan", "corpus_size"] and parse_only("") is None
    with pytest.raises(ConfigError, match="no such check.*known: .*leak_scan"):
        check_patterns(["leek_scan"], names)
    assert len(names) == len(set(names))


def test_sample_keeps_every_other_check_and_a_seeded_few_patch_verdicts_with_a_correct_fix():
    case = load_case(ROOT, "hard_case_01")
    every = check_names(case, ROOT, None)
    kept = sample_names(case.id, every, 3, 7)
    assert {n for n in every if not sampled_kind(n)} <= kept
    patches = [n for n in kept if sampled_kind(n)]
    assert len(patches) == 3 and any(n.startswith("corpus_accept:") for n in patches)
    assert sample_names(case.id, every, 3, 7) == kept  # the seed alone decides the draw
    assert any(sample_names(case.id, every, 3, s) != kept for s in range(8))
    assert not any(sampled_kind(n) for n in sample_names(case.id, every, 0, 7))


def test_derived_hard_checks_bring_their_inputs():
    case = load_case(ROOT, "hard_case_01")
    picked = {n for job in select_jobs(validation_jobs(case, ROOT, None), ["hard_anomaly"]) for n in job_names(job)}
    assert {n.split(":")[0] for n in picked} == {"over_fix_rejected"}


def test_validate_report_goes_to_stdout_progress_to_stderr(tmp_path):
    root = scaffold_root(tmp_path)
    new_case(root, "case_11")
    res = cli(root, "validate", "case_11", "--only", "placeholders_filled,corpus_size", "--jobs", "1")
    assert res.returncode == 1
    assert "FAIL case_11 placeholders_filled" in res.stdout and "case_11: 0/2 checks passed" in res.stdout
    assert "corpus_size" in res.stderr and "placeholders_filled" in res.stderr  # progress
    bad = cli(root, "validate", "case_11", "--only", "nope")
    assert bad.returncode == 2 and "no such check" in bad.stderr


# --- verify --patch --------------------------------------------------------------------------------------------


def test_verify_patch_that_does_not_apply_names_the_file(tmp_path):
    root = scaffold_root(tmp_path)
    new_case(root, "case_11")
    patch = tmp_path / "fix.patch"
    patch.write_text("--- a/train.py\n+++ b/train.py\n@@ -1,1 +1,1 @@\n-not this line\n+x\n")
    res = cli(root, "verify", "case_11", "--patch", str(patch))
    assert res.returncode == 2
    text = " ".join(res.stderr.split())
    assert str(patch) in text and "does not apply" in text and "train.py" in text
    res = cli(root, "verify", "case_11")
    assert res.returncode == 2 and "--patch" in res.stderr


@pytest.mark.slow
def test_verify_patch_applies_and_verifies_on_the_first_seeds(tmp_path):
    root = scaffold_root(tmp_path)
    new_case(root, "case_11")
    patch = tmp_path / "fix.patch"  # the toy trains to ~0.01, under the template's bound: a pass
    patch.write_text("--- a/train.py\n+++ b/train.py\n@@ -10,3 +10,3 @@\n     seed: int = 0\n-    lr: float = 0.1\n"
                     "+    lr: float = 0.2\n     steps: int = 200\n")
    res = cli(root, "verify", "case_11", "--patch", str(patch), "--seeds", "1")
    verdict = json.loads(res.stdout)
    assert res.returncode == 0, res.stdout + res.stderr
    assert verdict["status"] == "pass" and set(verdict["result"]["seeds"]) == {"0"}


# --- stray artifacts, logged_rows, decide_main without readme ------------------------------------------------------


def test_stray_artifacts_warn_about_untracked_files_and_artifacts(tmp_path):
    root = scaffold_root(tmp_path)
    new_case(root, "case_11")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    case = load_case(root, "case_11")
    chk = check_stray_artifacts(case, root)
    assert chk.passed and chk.measured["warnings"] == []
    (case.case_dir / "model.pt").write_bytes(b"x")
    (case.case_dir / "__pycache__").mkdir()
    (case.case_dir / "__pycache__" / "train.cpython-311.pyc").write_bytes(b"x")
    (case.case_dir / "notes.txt").write_text("x")
    chk = check_stray_artifacts(case, root)
    assert chk.passed and set(chk.measured["warnings"]) == {"artifact model.pt", "artifact __pycache__/",
                                                            "not in git: notes.txt"}


def test_stray_artifacts_fail_on_files_git_ignores(tmp_path):
    """A case that keeps its data under an ignored path runs where it was written and nowhere else."""
    root = scaffold_root(tmp_path)
    new_case(root, "case_11")
    (root / ".gitignore").write_text("cases/**/runs/\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    case = load_case(root, "case_11")
    (case.case_dir / "__pycache__").mkdir()
    (case.case_dir / "__pycache__" / "train.cpython-311.pyc").write_bytes(b"x")
    assert check_stray_artifacts(case, root).passed  # Python's caches are not a clean checkout's concern
    (case.case_dir / "data" / "runs").mkdir(parents=True)
    (case.case_dir / "data" / "runs" / "R1.npz").write_bytes(b"x")
    chk = check_stray_artifacts(case, root)
    assert not chk.passed and chk.measured["ignored"] == ["data/runs/"]
    assert "clean checkout" in chk.detail and "artifact data/runs/" not in chk.measured["warnings"]


def test_logged_rows_reads_nan_and_inf_as_values():
    sys.path.insert(0, str(ROOT / "answers"))
    try:
        from verifylib import logged_rows
    finally:
        sys.path.remove(str(ROOT / "answers"))
    rows = logged_rows("step 10 | loss nan | val acc 0.5\nstep 20 | loss -inf | grad NaN | inference 3\n")
    assert set(rows[10]) == {"loss", "val acc"} and rows[10]["loss"] != rows[10]["loss"]
    assert rows[20]["loss"] == float("-inf") and rows[20]["grad"] != rows[20]["grad"] and rows[20]["inference"] == 3


def test_decide_main_without_readme_fails_naming_it(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    for seed in (0, 1, 2):
        (out / f"seed_{seed}.json").write_text(json.dumps({"seed": seed, "status": "ok", "values": {}}))
    script = tmp_path / "decide.py"
    script.write_text(f"import sys; sys.path.insert(0, {str(ROOT / 'answers')!r})\n"
                      "from verifylib import decide_main\n"
                      "decide_main(lambda seed, m, checks: checks.check('fine', True))\n")
    res = subprocess.run([sys.executable, "-I", str(script), str(out)], capture_output=True, text=True, timeout=300)
    verdict = json.loads(res.stdout.strip().splitlines()[-1])
    assert res.returncode == 1 and not verdict["passed"]
    failed = [r for r in verdict["checks"] if not r["passed"]]
    assert [r["name"] for r in failed] == ["readme_run_checked"] and "readme=" in failed[0]["reason"]
