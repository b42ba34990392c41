"""What the hidden verifier's processes leave behind, read one way wherever a verdict is taken: by the harness's
verification (``harness.workspaces.verification``) and by the in-task grader of an exported Harbor task
(``harness.engines.harbor_grade``, which runs with only vendored modules and no sandbox layer). The measurements
are harvested from the folder the agent's code wrote; the deciding process's last JSON line is its verdict,
accepted only on the conditions below. Imports nothing above the core: it is copied into every exported task."""

from __future__ import annotations

import json
import re
import shutil
import stat
from pathlib import Path
from typing import Literal

from harness.core.case_records import SkippedEntry

OUTPUT_CAP = 64 * 1024  # what is kept of a verifier process's output (the verdict line is near its end)
README_RUN_CAP = 512 * 1024  # what is kept of the README run's output, for the decider's README checks
MEASUREMENT_NAME = re.compile(r"^seed_-?\d+(\.json|__[A-Za-z0-9_]+\.pt)$")
MAX_MEASUREMENT_BYTES = 512 * 1024 * 1024
MAX_HARVEST_BYTES = 1024 * 1024 * 1024


def harvest(out: Path, clean: Path) -> list[SkippedEntry]:
    """Copy the measurements worth reading from ``out`` (written by untrusted code) into ``clean``: regular files
    of the expected names, size-capped; what was left out and why."""
    clean.mkdir()
    skipped, total = [], 0
    for entry in sorted(out.iterdir(), key=lambda p: p.name):
        st = entry.lstat()
        if not stat.S_ISREG(st.st_mode) or not MEASUREMENT_NAME.match(entry.name):
            skipped.append(SkippedEntry(path=entry.name, kind="measurement",
                                        reason="not a regular file of an expected name"))
        elif st.st_size > MAX_MEASUREMENT_BYTES or total + st.st_size > MAX_HARVEST_BYTES:
            skipped.append(SkippedEntry(path=entry.name, kind="measurement", reason="over the size limit"))
        else:
            shutil.copyfile(entry, clean / entry.name, follow_symlinks=False)
            total += st.st_size
    return skipped


def verdict_line(stdout: str) -> dict | None:
    """The last line of ``stdout`` that is a JSON object with a boolean ``passed``: the decider's verdict."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            parsed = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(parsed, dict) and isinstance(parsed.get("passed"), bool):
            return parsed
    return None


def first_failed_check(result) -> str | None:
    """The first failed check row of a verdict line, as ``name (seed S): reason``; None when no row failed.
    Defensive, because recorded verdicts are read back too (``report --why``)."""
    rows = result.get("checks") if isinstance(result, dict) else None
    for row in rows if isinstance(rows, list) else []:
        if isinstance(row, dict) and not row.get("passed"):
            where = f" (seed {row['seed']})" if row.get("seed") is not None else ""
            detail = row.get("reason") or row.get("value")
            return f"{row.get('name')}{where}" + (f": {detail}" if detail is not None else "")
    return None


def first_failure(result: dict) -> str:
    """The first failing check of a verdict, as a one-line reason."""
    return (first_failed_check(result) or "verifier checks failed")[:500]


def first_seed_failed(result: dict | None, exit_code: int | None) -> bool:
    """A first phase's verdict line decided the first seed and a check failed there."""
    if not result or exit_code != 1 or not isinstance(result.get("partial"), dict) or not result.get("checks"):
        return False
    return not all(row.get("passed") for row in result["checks"])


def verdict_status(result: dict | None, exit_code: int | None, timed_out: bool,
                   partial_ok: bool = False) -> tuple[Literal["pass", "fail", "error"], str | None]:
    """The status and reason of a full verification from its deciding process: an ``error`` unless it printed a
    verdict line that its exit code agrees with (0 pass, 1 fail); a pass only with checks and every seed decided,
    and not partial unless ``partial_ok`` (a caller that asked for fewer seeds)."""
    if result is None or exit_code not in (0, 1) or (exit_code == 0) != result["passed"]:
        why = "timed out" if timed_out else f"exit code {exit_code}, " + (
            "no verdict line" if result is None else f"verdict line passed={result['passed']}")
        return "error", f"the deciding process could not run ({why})"
    seeds = result.get("seeds") or {}
    if result["passed"] and ((result.get("partial") and not partial_ok)
                             or not (result.get("checks") and seeds and all(seeds.values()))):
        return "error", "the deciding process passed with no checks or seeds, or on fewer seeds than asked"
    if result["passed"]:
        return "pass", None
    return "fail", first_failure(result)
