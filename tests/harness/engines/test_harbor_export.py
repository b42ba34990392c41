"""``export harbor``: the task folders are reproducible, hide the answers, and fit Harbor 0.26's TaskConfig.
All fast (no torch run); the emulated trials are in test_harbor_export_trials.py."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from harness.core import verifier_output
from harness.core.cases import copy_shared_verifier_code, load_case
from harness.core.errors import InputError, IntegrityError
from harness.engines import harbor_export, harbor_grade
from harness.engines.harbor_export import export_case, export_cases
from harness.engines.vendoring import vendored_files
from harness.workspaces import verification
from tests.builders.schema_check import load_fixture, task_toml_problems

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
    for src, rel in case.verifier_bundle:
        assert (task / "tests" / "verifier" / rel).read_bytes() == src.read_bytes()
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
    copy_shared_verifier_code(ROOT / "answers", tmp_path / "answers")
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


def import_statements(path: Path) -> list[ast.stmt]:
    """Every import statement of a file, at module level or inside a function."""
    return [n for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, (ast.Import, ast.ImportFrom))]


def run_every_import(task: Path) -> subprocess.CompletedProcess:
    """In a fresh ``python -I`` with only the task's tests/mldb added, every import statement of tests/grade.py and
    of the vendored files (lazy ones included) runs; it prints the project files that got loaded."""
    mldb = task / "tests" / "mldb"
    statements = dict.fromkeys(ast.unparse(s) for f in [task / "tests" / "grade.py", *sorted(mldb.rglob("*.py"))]
                               for s in import_statements(f) if getattr(s, "module", None) != "__future__")
    probe = "\n".join(["import sys, json", f"sys.path.insert(0, {str(mldb)!r})", *statements,
                       "print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items() "
                       "if n.split('.')[0] in ('harness', 'judges'))))"])
    return subprocess.run([sys.executable, "-I", "-c", probe], capture_output=True, text=True, cwd="/")


def test_the_vendored_graders_import_alone(exported):
    """tests/mldb holds every project module the in-task grader imports, at any depth and however lazily: every
    import statement of grade.py and of the vendored files runs with only tests/mldb added, and every project
    module loaded comes from there; tests/mldb holds nothing else."""
    mldb = exported / "case_01" / "tests" / "mldb"
    res = run_every_import(exported / "case_01")
    assert res.returncode == 0, res.stderr
    files = {Path(f).relative_to(mldb).as_posix() for f in json.loads(res.stdout)}
    assert files == set(harbor_export.vendored()) == {p.relative_to(mldb).as_posix() for p in mldb.rglob("*.py")}
    assert "harness/core/verifier_output.py" in files


def test_a_module_missing_from_the_vendored_files_fails_the_import_check(exported, tmp_path):
    """What the check above says of a task whose tests/mldb lacks a module the grader imports lazily."""
    task = tmp_path / "case_01"
    shutil.copytree(exported / "case_01", task)
    (task / "tests" / "mldb" / "harness" / "core" / "verifier_output.py").unlink()
    res = run_every_import(task)
    assert res.returncode != 0 and "harness.core.verifier_output" in res.stderr


def test_the_vendored_graders_need_only_the_standard_library_and_pydantic():
    """The image installs torch, numpy and pydantic; the grader's own modules must not need more."""
    files = [harbor_export.GRADER_SCRIPT, *(ROOT / rel for rel in harbor_export.vendored())]
    names = {(a.name if isinstance(s, ast.Import) else s.module).split(".")[0]
             for f in files for s in import_statements(f) for a in (s.names if isinstance(s, ast.Import) else [None])}
    assert names - set(sys.stdlib_module_names) - {"harness", "judges"} == {"pydantic"}


def test_the_vendored_files_follow_every_import(tmp_path):
    """The walk (harness.engines.vendoring) sees lazy imports, ``from pkg import module``, relative imports and
    what packages' __init__ files import; a project import with no file is an error naming the importer."""
    files = {"harness/__init__.py": "", "harness/core/__init__.py": "from harness.core import base\n",
             "harness/core/base.py": "import json\n", "harness/core/lazy.py": "",
             "harness/core/rel.py": "from . import base\nfrom .lazy import y\n", "harness/core/unused.py": "",
             "judges/__init__.py": "", "judges/j.py": "from harness.core.rel import x\n",
             "grade.py": "import sys\ndef f():\n    from harness.core.lazy import y\n    from judges import j\n"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert vendored_files(tmp_path, (tmp_path / "grade.py",)) == (
        "harness/__init__.py", "harness/core/__init__.py", "harness/core/base.py", "harness/core/lazy.py",
        "harness/core/rel.py", "judges/__init__.py", "judges/j.py")
    with open(tmp_path / "judges" / "j.py", "a") as fh:
        fh.write("def g():\n    import harness.core.gone\n")
    with pytest.raises(InputError, match=r"j\.py: imports harness\.core\.gone"):
        vendored_files(tmp_path, (tmp_path / "grade.py",))


def test_the_grader_reads_verdicts_with_the_verifications_code():
    """One copy of the harvest and verdict rules: the verification uses the core's, and grade.py defines none."""
    for name in ("harvest", "verdict_line", "first_failure", "verdict_status"):
        assert getattr(verification, name) is getattr(verifier_output, name)
    defined = {n.name for n in ast.parse(harbor_export.GRADER_SCRIPT.read_text()).body if isinstance(n, ast.FunctionDef)}
    assert not defined & {"harvest", "_harvest", "verdict_line", "_verdict_line", "_first_failure", "verdict_status"}
    assert not hasattr(harbor_grade, "MEASUREMENT_NAME")


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
