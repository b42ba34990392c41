"""Run samples (agent x condition x case x epoch), grade them, and save everything as it goes.

Samples run ``max_parallel`` at a time on worker threads (the agents mostly wait on models and
on commands, which are subprocesses); at most ``cpu_slots`` commands run at once across them
(``harness.slots``). Only the main thread writes ``samples.jsonl``. SIGINT/SIGTERM stop new
samples, kill every running command and leave the interrupted samples for ``resume``.
"""

from __future__ import annotations

import importlib.metadata
import platform
import queue
import random
import resource
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from harness import __version__, shutdown
from harness.agents.base import Agent, AgentOutcome, AgentTask, Limits, Toolbox
from harness.agents.llm import usage_from_events
from harness.cases import Case, tiers_of
from harness.errors import ConfigError, InfraError, IntegrityError, RunAborted, RunInterrupted
from harness.hashing import sha256_file, sha256_tree
from harness.criteria import ALL_CRITERIA
from harness.models import CpuKernel, RunManifest, RunOptions, SampleResult, Verdict
from harness.private_inputs import PrivateInputs
from harness.progress import SilentProgress
from harness.prompts import PROMPT_TEMPLATE_SHA256, render_system, render_task
from harness.results import append_sample, write_manifest, write_state
from harness.shutdown import Interrupted
from harness.slots import CpuSlots, SampleClock, SlottedSandbox
from harness.transcript import TranscriptWriter, harness_secrets
from harness.workspace import create_workspace, diff_trees, remove_workspace
from judges.grading import grade_deterministic, not_judged

CONTROL = "control"
SKILL = "skill"


@dataclass
class RunConfig:
    agent: Agent
    cases: list[Case]
    out_root: Path
    epochs: int = 1
    conditions: tuple[str, ...] = (CONTROL,)
    skill_text: str | None = None
    skill_sha256: str | None = None
    # the --skill path as given (a SKILL.md file or its folder): CLI agents install it the way their tool loads skills
    skill_path: Path | None = None
    limits: Limits = Limits()
    sandbox: object = None
    run_id: str | None = None
    # Optional LLM judge, called as judge(case, events, transcript_path) -> {criterion: Verdict}
    # after deterministic grading; it must expose .spec and .prompt_sha256 for the manifest.
    judge: Callable | None = None
    # The run's private read-only copies of cases/ and answers/ (None in validate's one-off samples)
    inputs: PrivateInputs | None = None
    # Where workspaces are made (one temp folder per run); None = the system temp folder
    work_dir: Path | None = None
    # the settings as given on the command line, recorded so that resume can rebuild the run
    options: RunOptions | None = None
    max_parallel: int = 1
    cpu_slots: int = 1
    order: str = "fixed"  # fixed: epoch, case, condition; random: shuffled with order_seed, arms interleaved
    order_seed: int = 0


@dataclass(frozen=True)
class Job:
    case: Case
    condition: str
    epoch: int

    @property
    def name(self) -> str:
        return sample_name(self.case.id, self.condition, self.epoch)

    @property
    def label(self) -> str:
        return f"{self.case.id} {self.condition} e{self.epoch}"


def plan_jobs(cfg: RunConfig) -> list[Job]:
    """Every sample of the run, in the order they start.

    ``random`` shuffles the (case, epoch) pairs with the recorded seed and puts a pair's arms next
    to each other in a random order, so drift in a provider over a run hits both arms alike."""
    pairs = [(case, epoch) for epoch in range(cfg.epochs) for case in cfg.cases]
    if cfg.order == "fixed":
        return [Job(case, cond, epoch) for case, epoch in pairs for cond in cfg.conditions]
    rng = random.Random(cfg.order_seed)
    rng.shuffle(pairs)
    jobs = []
    for case, epoch in pairs:
        conds = list(cfg.conditions)
        rng.shuffle(conds)
        jobs.extend(Job(case, cond, epoch) for cond in conds)
    return jobs


def new_run_id(agent_name: str) -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in agent_name)
    return f"{stamp}-{safe}-{secrets.token_hex(2)}"


def sample_name(case_id: str, condition: str, epoch: int) -> str:
    return f"{case_id}__{condition}__e{epoch}"


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


def _git_provenance(root: Path) -> dict:
    """The harness checkout's commit and whether it has local changes (nothing when not a checkout)."""
    def git(*args) -> str:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10,
                              check=True).stdout.strip()
    try:
        return {"git_commit": git("rev-parse", "HEAD"), "git_dirty": bool(git("status", "--porcelain"))}
    except (OSError, subprocess.SubprocessError):
        return {}


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "missing"


def provenance(cfg: RunConfig) -> dict:
    info = {**_git_provenance(Path(__file__).resolve().parent.parent),
            "openai": _version("openai"), "anthropic": _version("anthropic"),
            "order": cfg.order, "order_seed": cfg.order_seed,
            "max_parallel": cfg.max_parallel, "cpu_slots": cfg.cpu_slots,
            "tiers": tiers_of(c.id for c in cfg.cases)}
    cli_version = cfg.agent.settings.get("cli_version")
    if cli_version:
        info["agent_cli_version"] = cli_version
    return info


def kernel_of(sandbox) -> CpuKernel | None:
    """The kernel level the run's commands use (docs/integrity.md, "Portable verdicts"); None when torch
    cannot be asked (the run goes on; the manifest then says nothing rather than a guess)."""
    from harness.kernels import describe

    try:
        return describe(getattr(sandbox, "kernel", None))
    except ConfigError:
        return None


def build_manifest(cfg: RunConfig, run_id: str) -> RunManifest:
    # from package metadata: importing torch would cost a second and 180 MiB for one string
    torch_version = _version("torch")
    return RunManifest(
        run_id=run_id,
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        harness_version=__version__,
        agent=cfg.agent.name,
        agent_settings={**cfg.agent.settings, "limits": asdict(cfg.limits)},
        conditions=list(cfg.conditions),
        case_ids=[c.id for c in cfg.cases],
        epochs=cfg.epochs,
        case_sha256={c.id: sha256_tree(c.case_dir) for c in cfg.cases},
        answer_sha256={c.id: sha256_tree(c.answer_dir) for c in cfg.cases},
        inputs_sha256=dict(cfg.inputs.sha256) if cfg.inputs else {},
        prompt_template_sha256=PROMPT_TEMPLATE_SHA256,
        skill_sha256=cfg.skill_sha256,
        judge=cfg.judge.spec if cfg.judge else None,
        judge_prompt_sha256=cfg.judge.prompt_sha256 if cfg.judge else None,
        sandbox=cfg.sandbox.name,
        sandbox_details=cfg.sandbox.describe(),
        platform={"python": platform.python_version(), "torch": torch_version, "machine": platform.machine()},
        cpu_kernel=kernel_of(cfg.sandbox),
        provenance=provenance(cfg),
        options=cfg.options,
    )


def _all_unscored(reason: str) -> dict[str, Verdict]:
    return {c: Verdict(criterion=c, status="unscored", reason=reason, grader="none")
            for c in ALL_CRITERIA}


def _grade(cfg: RunConfig, run_dir: Path, case: Case, events, outcome: AgentOutcome, ws: Path,
           transcript_rel: str, diff_rel: str, sandbox) -> dict[str, Verdict]:
    try:
        diff = diff_trees(case.case_dir, ws)
    except OSError as exc:  # a workspace the diff cannot read is the agent's doing: tampering sees the marker
        diff = f"[... the final workspace could not be diffed: {exc} ...]\n"
    (run_dir / diff_rel).parent.mkdir(parents=True, exist_ok=True)
    (run_dir / diff_rel).write_text(diff, encoding="utf-8", errors="replace")
    guard = cfg.inputs.check if cfg.inputs else None
    roots = [cfg.inputs.root / "answers", cfg.inputs.source_root / "answers"] if cfg.inputs else []
    verdicts = not_judged(case)
    verdicts.update(grade_deterministic(case, events, outcome.report, diff, ws, sandbox, guard, roots))
    if cfg.judge is not None:
        verdicts.update(cfg.judge(case, events, run_dir / transcript_rel))
    return verdicts


def _broken_verifier(verdicts: dict[str, Verdict]) -> str | None:
    """The reason when the verifier could not run even on the gold patch: the harness's failure."""
    v = verdicts.get("fix_verified")
    if v is not None and v.status == "unscored" and (v.reason or "").startswith("verifier_error"):
        return v.reason
    return None


def run_sample(cfg: RunConfig, run_dir: Path, case: Case, condition: str, epoch: int,
               slots: CpuSlots | None = None) -> SampleResult:
    """One sample, start to finish. Any failure becomes a typed status; nothing recorded is lost.

    Three things leave as exceptions: a ConfigError from the agent (e.g. a refused key: every
    sample would fail the same way), an IntegrityError (the private answers changed) and
    Interrupted (the run is stopping; the partial transcript stays for resume to set aside)."""
    name = sample_name(case.id, condition, epoch)
    transcript_rel, diff_rel = f"transcripts/{name}.jsonl", f"diffs/{name}.patch"
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    clock = SampleClock()
    sandbox = SlottedSandbox(cfg.sandbox, slots or CpuSlots(1), clock)
    outcome = AgentOutcome(status="infra_error")
    verdicts: dict[str, Verdict] = {}
    ws = None
    with TranscriptWriter(run_dir / transcript_rel, secrets=harness_secrets()) as transcript:
        try:
            shutdown.check()
            if cfg.inputs:
                cfg.inputs.check()
            ws = create_workspace(case.case_dir, parent=cfg.work_dir)
            skill = cfg.skill_text if condition == SKILL else None
            system = render_system(skill)
            prompt = render_task((ws / "README.md").read_text(encoding="utf-8"), str(ws), case.manifest.entry_points)
            transcript.append("message", role="system", content=system)
            transcript.append("message", role="user", content=prompt)
            task = AgentTask(case_id=case.id, workspace=ws, system_prompt=system, prompt=prompt,
                             limits=cfg.limits, transcript=transcript,
                             tools=Toolbox(ws, transcript, sandbox, cfg.limits),
                             skill_text=skill, skill_path=cfg.skill_path if condition == SKILL else None,
                             clock=clock)
            try:
                outcome = cfg.agent.run(task)
            except (ConfigError, Interrupted) as exc:  # e.g. a refused API key: abort the run, keep the transcript
                transcript.append("error", error_type="interrupted" if isinstance(exc, Interrupted) else "run_aborted",
                                  message=str(exc))
                raise
            except InfraError as exc:  # the provider or the harness failed, not the agent: unscored, redone
                outcome = AgentOutcome(status="infra_error", error=str(exc), usage=usage_from_events(transcript.events))
                transcript.append("error", error_type="infra_error", message=str(exc))
            except Exception as exc:  # an agent crash is a result, not a harness crash; its calls were still spent
                outcome = AgentOutcome(status="agent_error", error=f"{type(exc).__name__}: {exc}",
                                       usage=usage_from_events(transcript.events))
                transcript.append("error", error_type="agent_error", message=traceback.format_exc()[-4000:])
            shutdown.check()  # the run stopped while the agent worked: its commands were killed, so no result
            outcome, verdicts = grade_outcome(cfg, run_dir, case, transcript, outcome, ws, transcript_rel, diff_rel,
                                              sandbox)
            shutdown.check()  # grading's processes were killed mid-way: not a verdict
        except Interrupted:
            transcript.append("error", error_type="interrupted", message="the run was stopped during this sample")
            raise
        except (ConfigError, IntegrityError):
            raise
        except Exception as exc:  # copying, diffing or grading failed: this sample's infra_error, not the run's
            outcome = AgentOutcome(status="infra_error", report=outcome.report, usage=outcome.usage,
                                   tool_errors=outcome.tool_errors, error=f"{type(exc).__name__}: {exc}")
            transcript.append("error", error_type="infra_error", message=traceback.format_exc()[-4000:])
            verdicts = _all_unscored(f"infra_error: {type(exc).__name__}: {exc}"[:300])
        finally:
            if ws is not None:
                remove_workspace(ws)
    return sample_record(cfg.agent.name, run_dir, case, condition, epoch, outcome, verdicts, started_at,
                         duration_s=time.monotonic() - clock.start, cpu_wait_s=clock.waited)


def grade_outcome(cfg: RunConfig, run_dir: Path, case: Case, transcript: TranscriptWriter, outcome: AgentOutcome,
                  ws: Path, transcript_rel: str, diff_rel: str, sandbox) -> tuple[AgentOutcome, dict[str, Verdict]]:
    """Grade a finished agent's work (every criterion; an infra_error is all unscored). A verifier that
    cannot run even on the gold patch turns the sample into infra_error: the harness's failure, not the agent's.
    Shared by ``run_sample`` and ``harness.session`` (a sample driven one command at a time)."""
    if outcome.status == "infra_error":
        return outcome, _all_unscored(f"infra_error: {outcome.error}"[:300])
    verdicts = _grade(cfg, run_dir, case, list(transcript.events), outcome, ws, transcript_rel, diff_rel, sandbox)
    broken = _broken_verifier(verdicts)
    if broken:
        outcome = AgentOutcome(status="infra_error", report=outcome.report, usage=outcome.usage,
                               tool_errors=outcome.tool_errors, error=broken)
        transcript.append("error", error_type="infra_error", message=broken)
        verdicts = _all_unscored(f"infra_error: {broken}"[:300])
    return outcome, verdicts


def sample_record(agent_name: str, run_dir: Path, case: Case, condition: str, epoch: int, outcome: AgentOutcome,
                  verdicts: dict[str, Verdict], started_at: str, duration_s: float, cpu_wait_s: float = 0.0) -> SampleResult:
    """The sample's line for samples.jsonl (an empty diff file when grading never wrote one)."""
    name = sample_name(case.id, condition, epoch)
    transcript_rel, diff_rel = f"transcripts/{name}.jsonl", f"diffs/{name}.patch"
    if not (run_dir / diff_rel).exists():
        (run_dir / diff_rel).parent.mkdir(parents=True, exist_ok=True)
        (run_dir / diff_rel).write_text("", encoding="utf-8")
    return _writable(SampleResult(
        sample_id=f"{agent_name}/{condition}/{case.id}/{epoch}",
        agent=agent_name, condition=condition, case_id=case.id, epoch=epoch,
        status=outcome.status, error=outcome.error, report=outcome.report,
        transcript=transcript_rel, transcript_sha256=sha256_file(run_dir / transcript_rel), diff=diff_rel,
        started_at=started_at, duration_s=round(duration_s, 3), usage=outcome.usage,
        tool_errors=outcome.tool_errors, cpu_wait_s=round(cpu_wait_s, 3),
        verdicts=verdicts,
    ))


def _writable(result: SampleResult) -> SampleResult:
    """The result, or, if something the agent controls still makes it unserialisable, the same sample as
    an unscored infra_error: one bad record must not stop the whole run."""
    try:
        result.model_dump_json()
        return result
    except Exception as exc:  # noqa: BLE001 - any serialisation failure
        reason = f"infra_error: the sample's record could not be written ({type(exc).__name__})"
        return result.model_copy(update={"status": "infra_error", "report": None, "error": reason,
                                         "verdicts": _all_unscored(reason)})


GRACE_S = 10.0  # after a stop, how long running samples get to notice it before the run ends without them


@dataclass
class Execution:
    """What happened to the jobs of one ``execute``: results were appended as they came."""

    results: list[SampleResult] = field(default_factory=list)
    interrupted: list[str] = field(default_factory=list)
    peak_cpu_slots: int = 0


@contextmanager
def _stop_on_signals():
    """SIGTERM behaves like Ctrl-C (KeyboardInterrupt in the main thread) while samples run."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    old = signal.signal(signal.SIGTERM, raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


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

    def worker() -> None:
        while not shutdown.stop_requested():
            try:
                job = todo.get_nowait()
            except queue.Empty:
                return
            progress.started(job.label)
            try:
                done.put((job, run_sample(cfg, run_dir, job.case, job.condition, job.epoch, slots), None))
            except BaseException as exc:  # noqa: BLE001 - handed to the main thread, which decides
                if not isinstance(exc, Interrupted):  # going on could only fail the same way: no new samples
                    shutdown.request_stop()
                done.put((job, None, exc))

    out = Execution()
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
            started = [j.name for j in jobs if j.name in running and (run_dir / "transcripts" / f"{j.name}.jsonl").exists()]
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
    write_state(run_dir, "finished", cfg.work_dir, peak_cpu_slots=done.peak_cpu_slots)
    return run_dir


def resume(cfg: RunConfig, run_dir: Path, progress=None, force: bool = False, warn=None) -> Path:
    """Run the samples of ``run_dir`` that have no final result, with ``cfg`` rebuilt from its manifest.

    Refused (ConfigError naming each change) when the cases, answers, prompt, skill, judge prompt or
    harness version differ from the run's, unless ``force``; the accepted mismatch is recorded."""
    from harness import resume as rs
    from harness.models import ResumeRecord
    from harness.results import read_manifest

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
    write_state(run_dir, "finished", cfg.work_dir, peak_cpu_slots=done.peak_cpu_slots)
    return run_dir
