"""Reading and writing a run folder: manifest.json, state.json, samples.jsonl, transcripts/, diffs/,
and attempts/ (partial transcripts of samples that were redone; never counted)."""

from __future__ import annotations

import json
import os
import warnings
from datetime import datetime, timezone
from pathlib import Path

from pydantic import ValidationError

from harness.core.errors import InputError
from harness.models import RunManifest, RunState, SampleResult

MANIFEST = "manifest.json"
STATE = "state.json"
SAMPLES = "samples.jsonl"
ATTEMPTS = "attempts"


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_manifest(run_dir: Path, manifest: RunManifest) -> None:
    _write_atomic(Path(run_dir) / MANIFEST, manifest.model_dump_json(indent=2) + "\n")


def read_manifest(run_dir: Path) -> RunManifest:
    path = Path(run_dir) / MANIFEST
    if not path.is_file():
        raise InputError(path, "not a run folder (manifest.json not found)")
    try:
        return RunManifest.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as exc:
        raise InputError(path, str(exc).splitlines()[0]) from exc


def write_state(run_dir: Path, status: str, scratch_dir: Path | None = None, interrupted: list[str] = (),
                peak_cpu_slots: int = 0) -> None:
    state = RunState(status=status, pid=os.getpid(), scratch_dir=str(scratch_dir) if scratch_dir else None,
                     interrupted=list(interrupted), peak_cpu_slots=peak_cpu_slots,
                     updated_at=datetime.now(timezone.utc).isoformat(timespec="seconds"))
    _write_atomic(Path(run_dir) / STATE, state.model_dump_json(indent=2) + "\n")


def read_state(run_dir: Path) -> RunState | None:
    path = Path(run_dir) / STATE
    try:
        return RunState.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError):
        return None  # a run from before state files, or one killed mid-write: resume treats it as dead


def append_sample(run_dir: Path, sample: SampleResult) -> None:
    with open(Path(run_dir) / SAMPLES, "a", encoding="utf-8") as fh:
        fh.write(sample.model_dump_json() + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def _parse(path: Path) -> tuple[list[SampleResult], str | None]:
    """Every valid line, and the text of a torn last line (a write cut short by a crash) if there is one.
    A bad line anywhere else is not a crash: it is an error naming the line."""
    if not path.is_file():
        return [], None
    lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    samples, torn = [], None
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            samples.append(SampleResult.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError) as exc:
            if n == len(lines):
                torn = line
                break
            raise InputError(path, f"line {n} is not a valid sample: {str(exc).splitlines()[0]}") from exc
    return samples, torn


def read_samples(run_dir: Path) -> list[SampleResult]:
    """All samples; when a sample was redone, the last line for its id wins. A torn last line is
    left out with a warning (``resume`` sets it aside)."""
    path = Path(run_dir) / SAMPLES
    samples, torn = _parse(path)
    if torn is not None:
        warnings.warn(f"{path}: the last line is incomplete (a write cut short); it is left out — "
                      f"`ml-debug-bench resume {run_dir}` sets it aside and redoes that sample", stacklevel=2)
    latest: dict[str, SampleResult] = {}
    for sample in samples:
        latest[sample.sample_id] = sample
    return list(latest.values())


def set_aside_torn_line(run_dir: Path) -> int:
    """Move a torn last line of samples.jsonl to samples.torn.jsonl; returns how many were moved (0 or 1)."""
    path = Path(run_dir) / SAMPLES
    samples, torn = _parse(path)
    if torn is None:
        return 0
    with open(Path(run_dir) / "samples.torn.jsonl", "a", encoding="utf-8") as fh:
        fh.write(torn + "\n")
    rewrite_samples(run_dir, samples)
    return 1


def rewrite_samples(run_dir: Path, samples: list[SampleResult]) -> None:
    """Atomically replace samples.jsonl (used when re-grading or resuming a saved run)."""
    _write_atomic(Path(run_dir) / SAMPLES, "".join(s.model_dump_json() + "\n" for s in samples))


def append_attempt(run_dir: Path, sample: SampleResult) -> None:
    """Keep a superseded result (e.g. an infra_error that resume redoes) beside its moved transcript."""
    (Path(run_dir) / ATTEMPTS).mkdir(parents=True, exist_ok=True)
    with open(Path(run_dir) / ATTEMPTS / "samples.jsonl", "a", encoding="utf-8") as fh:
        fh.write(sample.model_dump_json() + "\n")
