"""Run samples (agent x condition x case x epoch), grade them, and save everything as it goes.

Samples run ``max_parallel`` at a time on worker threads (the agents mostly wait on models and
on commands, which are subprocesses); at most ``cpu_slots`` commands run at once across them
(``harness.isolation.slots``). Only the main thread writes ``samples.jsonl``. SIGINT/SIGTERM stop new
samples, kill every running command and leave the interrupted samples for ``resume``.
"""

from __future__ import annotations

import queue
import resource
import shutil
import signal
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from harness.core.errors import ConfigError, RunAborted, RunInterrupted
from harness.core.results import append_sample, write_manifest, write_state
from harness.isolation import shutdown
from harness.isolation.shutdown import Interrupted
from harness.isolation.slots import CpuSlots
from harness.models import SampleResult

# config, manifest and sample are re-exported (noqa F401): a caller of the runner needs only this module
from harness.running.config import CONTROL, SKILL, Job, RunConfig, new_run_id, plan_jobs, sample_name  # noqa: F401
from harness.running.manifest import build_manifest, kernel_of, provenance  # noqa: F401
from harness.running.progress import SilentProgress
from harness.running.sample import _all_unscored, _writable, grade_outcome, run_sample, sample_record  # noqa: F401
from harness.workspaces.private_inputs import PrivateInputs


@contextmanager
def run_scratch(root: Path):
    """One temp folder for a run: the private read-only copies of cases/ and answers/ (yielded) and,
    beside them, every workspace the run makes. Removed at the end, whatever happened; after a
    ``kill -9``, ``resume`` removes it (its path is in the run's state.json)."""
    work_dir = Path(tempfile.mkdtemp(prefix="mldb-run-"))
    inputs = None
    try:
        inputs = PrivateInputs(root, work_dir)
        yield inputs, work_dir
    finally:
        if inputs is not None:
            inputs.remove()
        shutil.rmtree(work_dir, ignore_errors=True)


GRACE_S = 10.0  # after a stop, how long running samples get to notice it before the run ends without them


@dataclass
class Execution:
    """What happened to the jobs of one ``execute``: results were appended as they came."""

    results: list[SampleResult] = field(default_factory=list)
    interrupted: list[str] = field(default_factory=list)
    not_started: list[str] = field(default_factory=list)  # left when the run's budget was spent
    peak_cpu_slots: int = 0



@contextmanager
def _stop_on_signals():
    """SIGTERM and SIGINT behave like Ctrl-C (KeyboardInterrupt in the main thread) while samples run. SIGINT
    is set too: a process started in the background by a non-interactive shell (`cmd &` in a script, as CI
    or a supervisor may start a run) inherits SIGINT ignored, and Python then leaves it ignored, so a
    `kill -INT` would not stop the run."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    old = {sig: signal.signal(sig, raise_interrupt) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def _raise_fd_limit() -> None:
    """Parallel samples share the harness's file descriptors (pipes, relays, verifier outputs); the usual
    soft limit of 1024 is low for that, and the hard limit is free to take."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
        if want > soft:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    except (ValueError, OSError):
        pass


def execute(cfg: RunConfig, run_dir: Path, jobs: list[Job], progress=None) -> Execution:
    """Run ``jobs`` on ``cfg.max_parallel`` daemon worker threads, appending each result as it comes.

    Daemon threads, so a stop never waits on a model call still in flight: after SIGINT/SIGTERM
    every command is killed, running samples get ``GRACE_S`` to notice, and the run ends with
    RunInterrupted listing the samples that did not finish."""
    progress = progress or SilentProgress()
    shutdown.reset()
    _raise_fd_limit()
    slots = CpuSlots(cfg.cpu_slots)
    todo: queue.Queue[Job] = queue.Queue()
    for job in jobs:
        todo.put(job)
    done: queue.Queue = queue.Queue()
    out = Execution()

    def worker() -> None:
        while not shutdown.stop_requested():
            try:
                job = todo.get_nowait()
            except queue.Empty:
                return
            if cfg.budget is not None and cfg.budget.reached():  # in-flight samples finish; no new one starts
                out.not_started.append(job.name)
                continue
            progress.started(job.label)
            try:
                result = run_sample(cfg, run_dir, job.case, job.condition, job.epoch, slots)
                if cfg.budget is not None:  # counted before this worker takes another job
                    cfg.budget.add(result)
                done.put((job, result, None))
            except BaseException as exc:  # noqa: BLE001 - handed to the main thread, which decides
                if not isinstance(exc, Interrupted):  # going on could only fail the same way: no new samples
                    shutdown.request_stop()
                done.put((job, None, exc))

    threads = [threading.Thread(target=worker, name=f"sample-{i}", daemon=True)
               for i in range(min(cfg.max_parallel, len(jobs)))]
    running = {j.name for j in jobs}
    abort: BaseException | None = None
    with _stop_on_signals():
        for t in threads:
            t.start()
        try:
            while running and abort is None:
                try:
                    job, result, exc = done.get(timeout=0.5)
                except queue.Empty:
                    if not any(t.is_alive() for t in threads) and done.empty():
                        break
                    continue
                running.discard(job.name)
                if result is not None:
                    append_sample(run_dir, result)
                    out.results.append(result)
                    progress.finished(job.label, result)
                elif isinstance(exc, Interrupted):
                    out.interrupted.append(job.name)
                    progress.finished(job.label, None, "interrupted")
                else:
                    abort = RunAborted(f"run aborted at {job.label}: {exc}. {len(out.results)} finished sample(s) "
                                       f"and this sample's transcript are kept in {run_dir}", run_dir)
                    abort.__cause__ = exc
        except KeyboardInterrupt:
            abort = KeyboardInterrupt()
        if abort is not None:
            shutdown.request_stop()
            shutdown.kill_all()
            deadline = time.monotonic() + GRACE_S
            while any(t.is_alive() for t in threads) and time.monotonic() < deadline:
                try:
                    job, result, exc = done.get(timeout=0.2)
                except queue.Empty:
                    shutdown.kill_all()  # a sample between commands may have started one after the first kill
                    continue
                running.discard(job.name)
                if result is not None:  # finished before it could see the stop: a real result, keep it
                    append_sample(run_dir, result)
                    out.results.append(result)
                else:
                    out.interrupted.append(job.name)
            shutdown.kill_all()
            started = [j.name for j in jobs
                       if j.name in running and (run_dir / "transcripts" / f"{j.name}.jsonl").exists()]
            out.interrupted.extend(n for n in started if n not in out.interrupted)
    progress.close()
    out.peak_cpu_slots = slots.peak
    if isinstance(abort, RunAborted):
        write_state(run_dir, "aborted", cfg.work_dir, out.interrupted)
        raise abort
    if abort is not None:
        write_state(run_dir, "interrupted", cfg.work_dir, out.interrupted)
        raise RunInterrupted(run_dir, len(out.results), out.interrupted)
    return out


def run(cfg: RunConfig, progress=None) -> Path:
    """A new run: write its manifest, run every sample, return the run folder."""
    run_id = cfg.run_id or new_run_id(cfg.agent.name)
    run_dir = cfg.out_root / run_id
    write_manifest(run_dir, build_manifest(cfg, run_id))
    write_state(run_dir, "running", cfg.work_dir)
    jobs = plan_jobs(cfg)
    if progress:
        progress.begin(len(jobs))
    done = execute(cfg, run_dir, jobs, progress)
    write_state(run_dir, "budget_reached" if done.not_started else "finished", cfg.work_dir,
                peak_cpu_slots=done.peak_cpu_slots)
    return run_dir


def resume(cfg: RunConfig, run_dir: Path, progress=None, force: bool = False, warn=None) -> Path:
    """Run the samples of ``run_dir`` that have no final result, with ``cfg`` rebuilt from its manifest.

    Refused (ConfigError naming each change) when the cases, answers, prompt, skill, judge prompt or
    harness version differ from the run's, unless ``force``; the accepted mismatch is recorded."""
    from harness.core.results import read_manifest
    from harness.models import ResumeRecord
    from harness.running import resume as rs

    run_dir = Path(run_dir)
    rs.check_not_running(run_dir)
    manifest = read_manifest(run_dir)
    changes = rs.input_changes(manifest, build_manifest(cfg, manifest.run_id))
    if changes and not force:
        raise ConfigError(f"{run_dir} cannot be resumed as the same run: " + "; ".join(changes)
                          + ". Start a new run, or pass --force to go on (the mismatch is recorded in the manifest)")
    removed = rs.remove_dead_scratch(run_dir)
    if removed and warn:
        warn(f"removed the workspaces a dead run left in {removed}")
    jobs = plan_jobs(cfg)
    plan = rs.prepare(run_dir, [j.name for j in jobs], lambda s: sample_name(s.case_id, s.condition, s.epoch))
    if plan.torn_lines and warn:
        warn(f"{run_dir / 'samples.jsonl'}: an incomplete last line (a write cut short) was set aside in "
             "samples.torn.jsonl; its sample is redone")
    manifest.resumes.append(ResumeRecord(at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                                         redone=plan.redo, torn_lines=plan.torn_lines, forced_mismatches=changes))
    write_manifest(run_dir, manifest)
    write_state(run_dir, "running", cfg.work_dir)
    redo = set(plan.redo)
    todo = [j for j in jobs if j.name in redo]
    if progress:
        progress.begin(len(todo), len(plan.done))
    done = execute(cfg, run_dir, todo, progress)
    write_state(run_dir, "budget_reached" if done.not_started else "finished", cfg.work_dir,
                peak_cpu_slots=done.peak_cpu_slots)
    return run_dir
