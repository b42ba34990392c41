"""The Harbor job fixture, made whole in a temp folder: the case's unchanged files under each kept workspace."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
JOB = ROOT / "tests" / "fixtures" / "harbor_jobs" / "job_small"


def job_copy(dest: Path) -> Path:
    job = Path(dest) / JOB.name
    shutil.copytree(JOB, job)
    for kept in job.glob("*/artifacts/app"):
        case_id = kept.parent.parent.name.split("__")[0]
        shutil.copytree(ROOT / "cases" / case_id, kept, dirs_exist_ok=True,
                        ignore=lambda folder, names: [n for n in names if (kept / Path(folder).relative_to(ROOT / "cases" / case_id) / n).exists()])
    return job
