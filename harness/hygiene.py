"""Two checks on a case's folders that need no run: stray artifacts (a warning) and scaffold placeholders (a fail).

Whatever sits in ``cases/<id>/`` is copied into every agent's workspace, so a checkpoint or log left by running
the case in place hands the agent a result it did not produce, and changes the case's hash. ``validate`` warns
about such files; the placeholders ``new-case`` writes fail it until every one is replaced.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from harness.cases import Case

PLACEHOLDER = "SCAFFOLD-PLACEHOLDER"  # new-case writes it wherever the author still has to write something
ARTIFACT_SUFFIXES = {".pt", ".pth", ".ckpt", ".safetensors", ".pyc", ".log", ".npy", ".npz", ".pkl"}
ARTIFACT_DIRS = {"__pycache__", ".pytest_cache", ".ipynb_checkpoints", "runs", "wandb", "lightning_logs", ".git"}


def artifact_files(case_dir: Path) -> list[str]:
    """Files under the case folder that look like what running it leaves behind."""
    out = []
    for path in sorted(case_dir.rglob("*")):
        rel = path.relative_to(case_dir)
        if path.is_file() and (path.suffix in ARTIFACT_SUFFIXES or ARTIFACT_DIRS & set(rel.parts[:-1])):
            out.append(rel.as_posix())
        elif path.is_dir() and path.name in ARTIFACT_DIRS and not ARTIFACT_DIRS & set(rel.parts[:-1]):
            out.append(rel.as_posix() + "/")
    return [p for p in out if not any(p.startswith(d) and p != d for d in out if d.endswith("/"))]


def untracked_files(root: Path, case_dir: Path) -> list[str] | None:
    """Files of the case folder git does not track (ignored ones included); None outside a git checkout."""
    try:
        proc = subprocess.run(["git", "-C", str(root), "ls-files", "--others", "--", str(case_dir)],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    return sorted(Path(line).relative_to(case_dir.relative_to(root)).as_posix()
                  for line in proc.stdout.splitlines() if line.strip())


def check_stray_artifacts(case: Case, root: Path):
    """A warning, never a failure: artifacts a run leaves (``*.pt``, ``__pycache__``...) and files git does not
    track in the case folder. A case being written is untracked until committed: the list says so."""
    from harness.validate import Check

    artifacts = artifact_files(case.case_dir)
    untracked = untracked_files(root, case.case_dir) or []
    loose = [p for p in untracked if p not in artifacts and not any(p.startswith(a) for a in artifacts if a.endswith("/"))]
    warnings = [f"artifact {p}" for p in artifacts] + [f"not in git: {p}" for p in loose]
    detail = ("warning: " + "; ".join(warnings[:12]) + (" ..." if len(warnings) > 12 else "") +
              " (every file in the case folder reaches the agent's workspace: delete artifacts, commit the rest)"
              ) if warnings else "no stray artifacts; every file is tracked by git"
    return Check(case_id=case.id, name="stray_artifacts", passed=True, detail=detail,
                 measured={"warnings": warnings})


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
    from harness.validate import Check

    hits = placeholder_files(case)
    return Check(case_id=case.id, name="placeholders_filled", passed=not hits,
                 detail=(f"{PLACEHOLDER} left in: " + ", ".join(hits)) if hits else "no scaffold placeholder left")


def hygiene_jobs(case: Case, root: Path) -> list[tuple]:
    return [(check_stray_artifacts, (case, root)), (check_placeholders, (case,))]
