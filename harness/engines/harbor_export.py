"""Export cases as a Harbor dataset: one task folder per case (docs/engines.md, "Harbor export").

    OUT/<case_id>/task.toml            timeouts from the case, resources, no network, metadata with input hashes
    OUT/<case_id>/instruction.md       the harness's task prompt for the repo at /app, asking for report.json
    OUT/<case_id>/environment/         Dockerfile + app/ (the case folder, copied the safe way; no answers)
    OUT/<case_id>/tests/               test.sh, grade.py, grading.json, verifier/ (the verifier's bundle with
                                       the unchanged case), mldb/ (the project's graders, vendored)
    OUT/<case_id>/solution/            solve.sh, gold.patch, files/ (the gold-patched files), report.json

Every file is a function of the case, the answers and the project's code, written with fixed modes, so
re-exporting an unchanged case gives the same bytes.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import tempfile
from pathlib import Path

from harness.core.cases import Case
from harness.core.errors import InputError, IntegrityError
from harness.core.hashing import iter_files, sha256_bytes, sha256_file, sha256_tree
from harness.core.prompts import PROMPT_TEMPLATE_SHA256
from harness.engines import harbor_task as tpl
from harness.engines.vendoring import vendored_files
from harness.workspaces.verification import DECIDE_TIMEOUT_S, PRISTINE_DIR
from harness.workspaces.workspace import apply_patch, copy_tree_safely, create_workspace, remove_workspace

PROJECT_ROOT = Path(__file__).resolve().parents[2]
GRADER_SCRIPT = Path(__file__).with_name("harbor_grade.py")


@functools.cache
def vendored() -> tuple[str, ...]:
    """The project files copied into tests/mldb/: every one the in-task grader's imports load, read from the
    imports (harness.engines.vendoring), never a hand-kept list. The emulated trials import them there."""
    return vendored_files(PROJECT_ROOT, (GRADER_SCRIPT,))


OURS_MARK = f'name = "{tpl.TASK_ORG}/'


def _write(path: Path, text: str | bytes, executable: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    path.chmod(0o755 if executable else 0o644)


def _normalize_modes(root: Path) -> None:
    """Folders 755, files 644 (755 when the source was executable): the same bytes and modes on every export."""
    for p in sorted(root.rglob("*")):
        if p.is_symlink():
            continue
        if p.is_dir():
            p.chmod(0o755)
        else:
            p.chmod(0o755 if os.stat(p).st_mode & 0o100 else 0o644)


def _gold_files(case: Case, dest: Path) -> list[str]:
    """The files the gold patch changes, as they are after it, copied under ``dest``; the files it deletes."""
    ws = create_workspace(case.case_dir)
    try:
        apply_patch(ws, case.gold_patch_path)
        before = {p.relative_to(case.case_dir).as_posix() for p in iter_files(case.case_dir)}
        after = {p.relative_to(ws).as_posix() for p in iter_files(ws)}
        for rel in sorted(after):
            if rel not in before or (ws / rel).read_bytes() != (case.case_dir / rel).read_bytes():
                _write(dest / rel, (ws / rel).read_bytes())
        return sorted(before - after)
    finally:
        remove_workspace(ws)


def _file_lines(case: Case) -> dict[str, int]:
    from judges.grading import case_file_lines

    return dict(sorted(case_file_lines(case).items()))


def grading_spec(case: Case) -> dict:
    """tests/grading.json: what the in-task grader needs of the key, and nothing more."""
    return {
        "case_id": case.id, "run": case.manifest.run, "run_timeout": case.manifest.timeout_seconds,
        "measure": case.key.measure, "decide": case.key.decide,
        "measure_timeout": case.key.verifier_timeout_seconds, "decide_timeout": DECIDE_TIMEOUT_S,
        "locations": [loc.model_dump(mode="json") for loc in case.key.locations],
        "legitimate_guards": [g.model_dump(mode="json") for g in case.key.legitimate_guards],
        "oracle_symbols": list(case.key.oracle_symbols),
        "file_lines": _file_lines(case),
    }


def _vendored_sha() -> str:
    return sha256_bytes(b"".join(sha256_file(PROJECT_ROOT / rel).encode() + rel.encode() for rel in vendored()))


def input_hashes(case: Case) -> dict[str, str]:
    """What the task was made from: a re-export with the same hashes writes the same files."""
    verifier = sha256_bytes(b"".join(rel.encode() + sha256_file(p).encode() for p, rel in case.verifier_bundle))
    return {"case": sha256_tree(case.case_dir), "key": sha256_file(case.answer_dir / "key.toml"),
            "verifier": verifier, "gold_patch": sha256_file(case.gold_patch_path),
            "reference": sha256_file(case.answer_dir / "reference.toml"), "prompt": PROMPT_TEMPLATE_SHA256,
            "grader": sha256_file(GRADER_SCRIPT), "vendored": _vendored_sha(),
            "export": sha256_file(Path(__file__)), "templates": sha256_file(Path(tpl.__file__))}


def _check_no_answers(case: Case, task: Path) -> None:
    """What the agent sees (instruction.md, environment/) holds no canary and no answer file's bytes."""
    canary = case.key.canary.encode()
    seen = [task / "instruction.md", *sorted(p for p in (task / "environment").rglob("*") if p.is_file())]
    answer_blobs = {sha256_file(p) for p in iter_files(case.answer_dir)}
    for path in seen:
        data = path.read_bytes()
        if canary in data or (data.strip() and sha256_bytes(data) in answer_blobs):
            raise IntegrityError(f"{path} holds the canary of {case.id} or a file of its answers: not exported")


def _clear(task: Path) -> None:
    """An earlier export of this task is replaced; anything else at that path is refused, never deleted."""
    if not task.exists():
        return
    toml = task / "task.toml"
    if not (toml.is_file() and OURS_MARK in toml.read_text(encoding="utf-8", errors="replace")):
        raise InputError(task, "exists and is not a task this exporter wrote; choose another OUT folder")
    shutil.rmtree(task)


def export_case(case: Case, out: Path, allowed_hosts: tuple[str, ...] = ()) -> Path:
    """Write ``case`` as the Harbor task ``out/<case.id>``; returns its folder."""
    task = Path(out) / case.id
    task.parent.mkdir(parents=True, exist_ok=True)
    _clear(task)
    staging = Path(tempfile.mkdtemp(prefix=f".{case.id}-", dir=out))
    try:
        _write(staging / "task.toml", tpl.render_toml(tpl.task_config(case, input_hashes(case), allowed_hosts)))
        _write(staging / "instruction.md", tpl.instruction(case))
        _write(staging / "environment" / "Dockerfile", tpl.dockerfile())
        copy_tree_safely(case.case_dir, staging / "environment" / "app")
        tests = staging / "tests"
        _write(tests / "test.sh", tpl.test_sh(case), executable=True)
        _write(tests / "grade.py", GRADER_SCRIPT.read_bytes())
        _write(tests / "grading.json", json.dumps(grading_spec(case), indent=1, sort_keys=True) + "\n")
        for src, rel in case.verifier_bundle:
            _write(tests / "verifier" / rel, src.read_bytes())
        copy_tree_safely(case.case_dir, tests / "verifier" / PRISTINE_DIR)
        for rel in vendored():
            _write(tests / "mldb" / rel, (PROJECT_ROOT / rel).read_bytes())
        solution = staging / "solution"
        deleted = _gold_files(case, solution / "files")
        _write(solution / "solve.sh", tpl.solve_sh(case, deleted), executable=True)
        _write(solution / "gold.patch", case.gold_patch_path.read_bytes())
        _write(solution / "report.json", tpl.reference_report(case))
        _normalize_modes(staging)
        staging.chmod(0o755)
        _check_no_answers(case, staging)
        staging.rename(task)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return task


def export_cases(cases: list[Case], out: Path, allowed_hosts: tuple[str, ...] = ()) -> list[Path]:
    return [export_case(case, Path(out), allowed_hosts) for case in cases]
