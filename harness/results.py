"""Reading and writing a run folder: manifest.json, samples.jsonl, transcripts/, diffs/."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import ValidationError

from harness.errors import InputError
from harness.models import RunManifest, SampleResult

MANIFEST = "manifest.json"
SAMPLES = "samples.jsonl"


def write_manifest(run_dir: Path, manifest: RunManifest) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    tmp = run_dir / (MANIFEST + ".tmp")
    tmp.write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, run_dir / MANIFEST)


def read_manifest(run_dir: Path) -> RunManifest:
    path = Path(run_dir) / MANIFEST
    if not path.is_file():
        raise InputError(path, "not a run folder (manifest.json not found)")
    try:
        return RunManifest.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as exc:
        raise InputError(path, str(exc).splitlines()[0]) from exc


def append_sample(run_dir: Path, sample: SampleResult) -> None:
    with open(Path(run_dir) / SAMPLES, "a", encoding="utf-8") as fh:
        fh.write(sample.model_dump_json() + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def read_samples(run_dir: Path) -> list[SampleResult]:
    """All samples; when a sample was re-graded, the last line for its id wins."""
    path = Path(run_dir) / SAMPLES
    if not path.is_file():
        return []
    latest: dict[str, SampleResult] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            sample = SampleResult.model_validate(json.loads(line))
        except (json.JSONDecodeError, ValidationError) as exc:
            raise InputError(path, f"line {n} is not a valid sample: {str(exc).splitlines()[0]}") from exc
        latest[sample.sample_id] = sample
    return list(latest.values())


def rewrite_samples(run_dir: Path, samples: list[SampleResult]) -> None:
    """Atomically replace samples.jsonl (used when re-grading a saved run)."""
    path = Path(run_dir) / SAMPLES
    tmp = path.with_suffix(".jsonl.tmp")
    tmp.write_text("".join(s.model_dump_json() + "\n" for s in samples), encoding="utf-8")
    os.replace(tmp, path)
