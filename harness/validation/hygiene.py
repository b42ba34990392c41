"""Two checks on a case's folders that need no run: stray artifacts and scaffold placeholders.

Whatever sits in ``cases/<id>/`` is copied into every agent's workspace, so a checkpoint or log left by running
the case in place hands the agent a result it did not produce, and changes the case's hash. ``validate`` warns
about untracked files, and fails on files git ignores (other than Python's caches): a clean checkout (CI, another
machine, a blind solve's clone) does not have them, so a case that reads one runs only where it was written.
The placeholders ``new-case`` writes fail it until every one is replaced.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from harness.core.cases import Case

PLACEHOLDER = "SCAFFOLD-PLACEHOLDER"  # new-case writes it wherever the author still has to write something
ARTIFACT_SUFFIXES = {".pt", ".pth", ".ckpt", ".safetensors", ".pyc", ".log", ".npy", ".npz", ".pkl"}
ARTIFACT_DIRS = {"__pycache__", ".pytest_cache", ".ipynb_checkpoints", "runs", "wandb", "lightning_logs", ".git"}


def looks_like_artifact(rel: str) -> bool:
    parts = rel.split("/")
    return Path(rel).suffix in ARTIFACT_SUFFIXES or bool(ARTIFACT_DIRS & set(parts[:-1]))


def _collapse(paths: list[str]) -> list[str]:
    """Files inside an artifact folder shown once, as the folder (``__pycache__/``)."""
    out = []
    for rel in paths:
        parts = rel.split("/")
        cut = next((i for i, part in enumerate(parts[:-1]) if part in ARTIFACT_DIRS), None)
        shown = "/".join(parts[:cut + 1]) + "/" if cut is not None else rel
        if shown not in out:
            out.append(shown)
    return out


def artifact_files(case_dir: Path) -> list[str]:
    """Files under the case folder that look like what running it leaves behind (outside a git checkout)."""
    return _collapse([p.relative_to(case_dir).as_posix() for p in sorted(case_dir.rglob("*"))
                      if p.is_file() and looks_like_artifact(p.relative_to(case_dir).as_posix())])


def untracked_files(root: Path, case_dir: Path) -> list[str] | None:
    """Files of the case folder git does not track (ignored ones included); None outside a git checkout."""
    try:
        proc = subprocess.run(["git", "-C", str(root), "ls-files", "--others", "--", str(case_dir)],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    prefix = case_dir.resolve().relative_to(root.resolve()).as_posix() + "/"
    return sorted(line[len(prefix):] for line in proc.stdout.splitlines() if line.startswith(prefix))


PYTHON_CACHES = {"__pycache__", ".pytest_cache"}


def ignored_files(root: Path, case_dir: Path) -> list[str]:
    """Files of the case folder git ignores, Python's caches left out; empty outside a git checkout."""
    try:
        proc = subprocess.run(["git", "-C", str(root), "ls-files", "--others", "--ignored", "--exclude-standard",
                               "--", str(case_dir)], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if proc.returncode != 0:
        return []
    prefix = case_dir.resolve().relative_to(root.resolve()).as_posix() + "/"
    return sorted(rel for rel in (line[len(prefix):] for line in proc.stdout.splitlines() if line.startswith(prefix))
                  if not PYTHON_CACHES & set(rel.split("/")[:-1]) and not rel.endswith(".pyc"))


def check_stray_artifacts(case: Case, root: Path):
    """Files git does not track in the case folder are a warning (artifacts a run leaves, such as ``*.pt``, named
    as such; a case being written is untracked until committed); files git IGNORES fail the check, because a
    clean checkout lacks them: delete a run's output, move data the case reads out of the ignored path. Outside a
    git checkout, the files that look like artifacts are a warning."""
    from harness.validation.checks import Check

    untracked = untracked_files(root, case.case_dir)
    ignored = _collapse(ignored_files(root, case.case_dir)) if untracked is not None else []
    if untracked is None:
        warnings = [f"artifact {p}" for p in artifact_files(case.case_dir)]
    else:
        warnings = [f"artifact {p}" if looks_like_artifact(p) else f"not in git: {p}" for p in _collapse(untracked)
                    if p not in ignored]
    parts = []
    if ignored:
        parts.append("ignored by git, so a clean checkout does not have it: " + ", ".join(ignored[:12]) +
                     (" ..." if len(ignored) > 12 else "") +
                     " (delete it if a run left it; if the case reads it, move it out of the ignored path)")
    if warnings:
        parts.append("warning: " + "; ".join(warnings[:12]) + (" ..." if len(warnings) > 12 else "") +
                     " (every file in the case folder reaches the agent's workspace: delete artifacts, commit the"
                     " rest)")
    detail = "; ".join(parts) if parts else "no stray artifacts" + ("; every file is tracked by git"
                                                                    if untracked is not None else "")
    return Check(case_id=case.id, name="stray_artifacts", passed=not ignored, detail=detail,
                 measured={"warnings": warnings, "ignored": ignored})


def placeholder_files(case: Case) -> list[str]:
    """Files of the case and its answers still holding the scaffold's placeholder."""
    hits = []
    for folder, label in ((case.case_dir, f"cases/{case.id}"), (case.answer_dir, f"answers/{case.id}")):
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            if PLACEHOLDER in text:
                hits.append(f"{label}/{path.relative_to(folder).as_posix()} ({text.count(PLACEHOLDER)})")
    return hits


def check_placeholders(case: Case):
    """Every placeholder ``new-case`` wrote has been replaced: the check names each file still holding one."""
    from harness.validation.checks import Check

    hits = placeholder_files(case)
    return Check(case_id=case.id, name="placeholders_filled", passed=not hits,
                 detail=(f"{PLACEHOLDER} left in: " + ", ".join(hits)) if hits else "no scaffold placeholder left")


def hygiene_jobs(case: Case, root: Path) -> list[tuple]:
    return [(check_stray_artifacts, (case, root)), (check_placeholders, (case,))]
