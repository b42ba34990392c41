"""``export harbor``: the task folders are reproducible, hide the answers, and fit Harbor 0.26's TaskConfig.
All fast (no torch run); the emulated trials are in test_harbor_export_trials.py."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from harness.core.cases import load_case
from harness.core.errors import InputError, IntegrityError
from harness.engines import harbor_export, harbor_grade
from harness.engines.harbor_export import export_case, export_cases
from harness.workspaces import verification
from tests.harness.engines.schema_check import load_fixture, task_toml_problems

ROOT = Path(__file__).resolve().parents[3]
CASES = ("case_01", "hard_case_01")


def tree(folder: Path) -> dict[str, tuple[int, str]]:
    """rel path -> (mode, sha256) of every file and folder."""
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        out[rel] = (p.stat().st_mode & 0o777, hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir")
    return out


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("harbor")
    export_cases([load_case(ROOT, c) for c in CASES], out)
    return out


def test_re_export_is_byte_identical(exported, tmp_path):
    again = tmp_path / "again"
    export_cases([load_case(ROOT, c) for c in CASES], again)
    for case_id in CASES:
        assert tree(exported / case_id) == tree(again / case_id)
    export_case(load_case(ROOT, "case_01"), again)  # over its own earlier export: replaced, the same bytes
    assert tree(exported / "case_01") == tree(again / "case_01")


def test_the_layout_harbor_expects(exported):
    task = exported / "case_01"
    for rel in ("task.toml", "instruction.md", "environment/Dockerfile", "tests/test.sh", "solution/solve.sh"):
        assert (task / rel).is_file(), rel
    assert os.access(task / "tests" / "test.sh", os.X_OK) and os.access(task / "solution" / "solve.sh", os.X_OK)
    case = load_case(ROOT, "case_01")
    assert tree(task / "environment" / "app") == tree(task / "tests" / "verifier" / "case")
    for src in case.verifier_files:
        assert (task / "tests" / "verifier" / src.name).read_bytes() == src.read_bytes()
    docker = (task / "environment" / "Dockerfile").read_text()
    assert "FROM python:3.11" in docker and "torch==2.13.0" in docker and "download.pytorch.org/whl/cpu" in docker
    assert "WORKDIR /app" in docker and "COPY app/ /app/" in docker


@pytest.mark.parametrize("case_id", CASES)
def test_nothing_of_the_answers_where_the_agent_looks(exported, case_id):
    case = load_case(ROOT, case_id)
    task = exported / case_id
    seen = [task / "instruction.md", *(p for p in (task / "environment").rglob("*") if p.is_file())]
    assert all(case.key.canary.encode() not in p.read_bytes() for p in seen)
    assert all(not p.name.startswith(("gold", "overfix", "key", "measure", "decide", "verifylib")) for p in seen)
    assert case.key.canary.encode() in (task / "tests" / "verifier" / case.key.measure).read_bytes()  # the scan sees it


def test_a_canary_in_the_case_folder_stops_the_export(tmp_path):
    """A case whose own files carry the key's canary (an author's slip) is never exported."""
    for part in ("cases/case_01", "answers/case_01"):
        shutil.copytree(ROOT / part, tmp_path / part)
    shutil.copy(ROOT / "answers" / "verifylib.py", tmp_path / "answers" / "verifylib.py")
    case = load_case(tmp_path, "case_01")
    with open(case.case_dir / "data.py", "a") as fh:
        fh.write(f"# {case.key.canary}\n")
    with pytest.raises(IntegrityError, match="canary"):
        export_case(case, tmp_path / "out")
    assert not (tmp_path / "out" / "case_01").exists() and list((tmp_path / "out").iterdir()) == []


def test_a_folder_the_exporter_did_not_write_is_never_replaced(tmp_path):
    (tmp_path / "case_01").mkdir()
    (tmp_path / "case_01" / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="not a task this exporter wrote"):
        export_case(load_case(ROOT, "case_01"), tmp_path)
    assert (tmp_path / "case_01" / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("case_id", CASES)
def test_task_toml_fits_harbor_task_config(exported, case_id):
    data = tomllib.loads((exported / case_id / "task.toml").read_text())
    assert task_toml_problems(data) == []
    assert data["agent"]["network_mode"] == data["verifier"]["network_mode"] == "no-network"
    assert data["environment"]["network_mode"] == "no-network"
    case = load_case(ROOT, case_id)
    assert data["metadata"]["canary"] == case.key.canary and data["metadata"]["tier"] == case.tier
    assert data["metadata"]["family"] == "case_01" and set(data["metadata"]["input_hashes"]) >= {"case", "verifier"}
    assert data["verifier"]["timeout_sec"] > case.key.verifier_timeout_seconds + case.manifest.timeout_seconds


def test_the_schema_check_fails_deprecated_and_unknown_fields(exported):
    data = tomllib.loads((exported / "case_01" / "task.toml").read_text())
    fixture = load_fixture()
    assert "harbor==0.26.0" in fixture["source"]["package"]
    old = json.loads(json.dumps(data))
    old["environment"]["allow_internet"] = False
    assert any("allow_internet: deprecated" in p for p in task_toml_problems(old, fixture))
    typo = json.loads(json.dumps(data))
    typo["agent"]["network"] = "none"
    assert any("agent.network: not a field" in p for p in task_toml_problems(typo, fixture))
    bad = json.loads(json.dumps(data))
    bad["verifier"]["network_mode"] = "off"
    assert task_toml_problems(bad, fixture)


def test_allowed_hosts_make_the_agent_phase_an_allowlist(tmp_path):
    task = export_case(load_case(ROOT, "case_01"), tmp_path, allowed_hosts=("api.anthropic.com",))
    data = tomllib.loads((task / "task.toml").read_text())
    assert data["agent"] == {"timeout_sec": 3600.0, "network_mode": "allowlist", "allowed_hosts": ["api.anthropic.com"]}
    assert task_toml_problems(data) == []


def test_instruction_is_the_harness_prompt_asking_for_report_json(exported):
    text = (exported / "case_01" / "instruction.md").read_text()
    readme = (ROOT / "cases" / "case_01" / "README.md").read_text().strip()
    assert readme in text and "The repository is at: /app" in text and "`report.json`" in text
    assert "`train.Config`" in text


def test_the_vendored_graders_import_alone(exported):
    """tests/mldb holds every project module the in-task grader imports: in a fresh ``python -I`` with only
    tests/mldb added, the graders import and every project module loaded comes from there."""
    mldb = exported / "case_01" / "tests" / "mldb"
    probe = ("import sys; sys.path.insert(0, sys.argv[1]); import json\n"
             "import judges.deterministic, judges.tampering, harness.workspaces.workspace, harness.models\n"
             "print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items() if n.split('.')[0] in "
             "('harness', 'judges'))))")
    res = subprocess.run([sys.executable, "-I", "-c", probe, str(mldb)], capture_output=True, text=True, cwd="/")
    assert res.returncode == 0, res.stderr
    files = json.loads(res.stdout)
    assert files and all(f.startswith(str(mldb)) for f in files)
    assert len(files) == len(harbor_export.VENDORED)


def test_the_grader_harvests_as_the_verification_does():
    assert harbor_grade.MEASUREMENT_NAME.pattern == verification.MEASUREMENT_NAME.pattern
    assert (harbor_grade.MAX_MEASUREMENT_BYTES, harbor_grade.MAX_HARVEST_BYTES) == (
        verification.MAX_MEASUREMENT_BYTES, verification.MAX_HARVEST_BYTES)
    assert harbor_grade.README_RUN_CAP == verification.README_RUN_CAP


def test_solution_holds_the_gold_files_and_the_reference_report(exported):
    case = load_case(ROOT, "case_01")
    solution = exported / "case_01" / "solution"
    assert (solution / "gold.patch").read_bytes() == case.gold_patch_path.read_bytes()
    assert sorted(p.name for p in (solution / "files").rglob("*") if p.is_file()) == ["model.py"]
    assert json.loads((solution / "report.json").read_text()) == case.reference.report.model_dump(mode="json")


def test_cli_export_harbor(tmp_path):
    from typer.testing import CliRunner

    from harness.cli import app

    res = CliRunner().invoke(app, ["export", "harbor", str(tmp_path / "ds"), "case_01"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "ds" / "case_01" / "task.toml").is_file()
    res = CliRunner().invoke(app, ["export", "harbor", str(tmp_path / "ds"), "case_99"])
    assert res.exit_code == 2 and "no such case" in res.output


def test_rewards_replace_a_planted_link_instead_of_following_it(tmp_path):
    target = tmp_path / "elsewhere.json"
    target.write_text("theirs")
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "reward.json").symlink_to(target)
    harbor_grade._write_replacing(logs / "reward.json", '{"reward": 0}')
    assert target.read_text() == "theirs"
    assert not (logs / "reward.json").is_symlink() and json.loads((logs / "reward.json").read_text()) == {"reward": 0}


@pytest.mark.skipif(os.geteuid() != 0, reason="lock_down acts only as root, as in Harbor's container")
def test_lock_down_undoes_harbors_chmod_777(tmp_path):
    tests, logs = tmp_path / "tests", tmp_path / "logs"
    (tests / "verifier").mkdir(parents=True)
    (tests / "verifier" / "decide.py").write_text("x")
    (tests / "test.sh").write_text("x")
    logs.mkdir()
    for p in (tests, tests / "verifier", tests / "verifier" / "decide.py", tests / "test.sh", logs):
        p.chmod(0o777)
    harbor_grade.lock_down(tests, logs)
    modes = {p.name: p.stat().st_mode & 0o777 for p in (tests, tests / "verifier", tests / "verifier" / "decide.py",
                                                           tests / "test.sh", logs)}
    assert modes == {"tests": 0o755, "verifier": 0o755, "decide.py": 0o644, "test.sh": 0o755, "logs": 0o755}
