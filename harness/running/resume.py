"""Resuming a run: what is already done, what to redo, and whether the inputs are still the ones
the run started with.

A sample is done when samples.jsonl has a result for it that is not ``infra_error``. Everything
else is redone: samples never started, samples cut short (their partial transcript is moved to
``attempts/`` as ``NAME.attempt-K``) and samples that ended ``infra_error`` (their result moves to
``attempts/samples.jsonl``). Attempts are kept for the record and never counted.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from harness.core.errors import ConfigError
from harness.core.results import (
    ATTEMPTS,
    append_attempt,
    read_samples,
    read_state,
    rewrite_samples,
    set_aside_torn_line,
)
from harness.models import RunManifest, SampleResult


@dataclass
class ResumePlan:
    done: list[SampleResult] = field(default_factory=list)
    redo: list[str] = field(default_factory=list)  # sample names (case__condition__eN) to run again
    torn_lines: int = 0
    attempts_kept: list[str] = field(default_factory=list)


def input_changes(old: RunManifest, new: RunManifest) -> list[str]:
    """Each input the run depends on that differs now, named so a person can see what changed."""
    changes = []
    for cid in old.case_ids:
        if old.case_sha256.get(cid) != new.case_sha256.get(cid):
            changes.append(f"cases/{cid} changed")
        if old.answer_sha256.get(cid) != new.answer_sha256.get(cid):
            changes.append(f"answers/{cid} changed")
    for tree in ("cases", "answers"):
        if not any(c.startswith(f"{tree}/") for c in changes) and \
                old.inputs_sha256.get(tree) not in (None, new.inputs_sha256.get(tree)):
            changes.append(f"{tree}/ changed outside the run's cases (e.g. answers/verifylib.py)")
    for name, label in (("prompt_template_sha256", "the task prompt template"), ("skill_sha256", "the skill file"),
                        ("judge_prompt_sha256", "the judge prompt"), ("harness_version", "the harness version")):
        if getattr(old, name) != getattr(new, name):
            changes.append(f"{label} changed ({getattr(old, name)} -> {getattr(new, name)})")
    if old.cpu_kernel and new.cpu_kernel and old.cpu_kernel.level != new.cpu_kernel.level:
        changes.append(f"torch's CPU kernel level changed ({old.cpu_kernel.level} -> {new.cpu_kernel.level}): "
                       f"verdicts of chaotic training may differ between levels")
    return changes


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def check_not_running(run_dir: Path) -> None:
    """Refuse to resume a run whose process is still going (two writers would duplicate samples)."""
    state = read_state(run_dir)
    if state is not None and state.status == "running" and state.pid != os.getpid() and _alive(state.pid):
        cmdline = Path(f"/proc/{state.pid}/cmdline")
        try:
            ours = b"ml-debug-bench" in cmdline.read_bytes() or b"harness" in cmdline.read_bytes()
        except OSError:
            ours = True
        if ours:
            raise ConfigError(f"{run_dir} is still being run by process {state.pid}; stop it first "
                              f"(kill -TERM {state.pid}) or wait for it to finish")


def remove_dead_scratch(run_dir: Path) -> str | None:
    """Remove the temp folder (private inputs, workspaces) a killed run left behind; returns its path."""
    state = read_state(run_dir)
    if state is None or not state.scratch_dir:
        return None
    scratch = Path(state.scratch_dir)
    if scratch.name.startswith("mldb-run-") and scratch.is_dir():
        shutil.rmtree(scratch, ignore_errors=True)
        return str(scratch)
    return None


def _keep_attempt(run_dir: Path, rel: str, name: str, suffix: str) -> str | None:
    """Move one file of a redone sample to attempts/, as NAME.attempt-K; returns its new relative path."""
    src = run_dir / rel
    if not src.exists():
        return None
    folder = run_dir / ATTEMPTS / Path(rel).parent
    folder.mkdir(parents=True, exist_ok=True)
    k = 1
    while (folder / f"{name}.attempt-{k}{suffix}").exists():
        k += 1
    dst = folder / f"{name}.attempt-{k}{suffix}"
    os.replace(src, dst)
    return dst.relative_to(run_dir).as_posix()


def prepare(run_dir: Path, names: list[str], name_of) -> ResumePlan:
    """Sort the planned samples (``names``) into done and to-redo, setting aside a torn last line,
    infra_error results and partial transcripts. ``name_of(sample)`` gives a result's sample name."""
    plan = ResumePlan(torn_lines=set_aside_torn_line(run_dir))
    results = read_samples(run_dir)
    keep, superseded = [], []
    for s in results:
        (superseded if s.status == "infra_error" else keep).append(s)
    for s in superseded:
        append_attempt(run_dir, s)
    if superseded:
        rewrite_samples(run_dir, keep)
    plan.done = [s for s in keep if name_of(s) in set(names)]
    finished = {name_of(s) for s in keep}
    for name in names:
        if name in finished:
            continue
        plan.redo.append(name)
        for rel, suffix in ((f"transcripts/{name}.jsonl", ".jsonl"), (f"diffs/{name}.patch", ".patch")):
            moved = _keep_attempt(run_dir, rel, name, suffix)
            if moved and suffix == ".jsonl":
                plan.attempts_kept.append(moved)
    return plan
