"""One sample driven from outside, one command at a time: ``ml-debug-bench session``.

A model driven by another program, a person setting a human baseline, or a reviewer gets the
same workspace, sandbox, limits, transcript and grading as a ``run`` sample, but each action is
a separate process: ``start`` makes the workspace and the run folder, ``exec`` runs one command
through the built-in agent's bash tool (``Toolbox.bash``), ``submit`` or ``abandon`` end the
sample and grade it with the runner's own code (``runner.grade_outcome``).

What lives between processes is kept outside the workspace and outside the sandbox's view:
``<sessions dir>/<id>/`` holds the state (``SessionState``), the watcher's last look at the
workspace (so edits are still recorded from the files, whoever made them) and a lock that
serialises every command on a session. The private copies of cases/ and answers/ sit in the
session's temp folder beside the workspace, exactly as a run's do, and are re-hashed by every
command. The transcript's hash after each write is kept in the state: an edit to it between
calls stops the session with an IntegrityError instead of being graded.

Budgets count between calls: the wall clock runs from ``start`` (a person's thinking time
included) and each ``exec`` is a step. A session past its wall budget is ended as
``limit_reached`` and graded by the next ``session`` command of any kind (``expire_overdue``).
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from harness.agents.base import AgentOutcome, Limits
from harness.agents.cli_base import REPORT_FILE, REPORT_INSTRUCTIONS, read_report_file, remove_paths, with_skill_block
from harness.core.cases import load_cases, tiers_of
from harness.core.errors import BenchError, ConfigError, InputError, IntegrityError
from harness.core.hashing import sha256_file
from harness.core.prompts import render_system, render_task
from harness.core.results import append_sample, write_manifest, write_state
from harness.core.transcript import TranscriptWriter, harness_secrets
from harness.isolation.sandbox import get_sandbox
from harness.models import Report, SampleResult, SessionState
from harness.running.runner import RunConfig, build_manifest, grade_outcome, new_run_id, sample_name, sample_record
from harness.running.session_store import (
    HUMAN_NAME,
    SESSION_ID,
    STATE_FILE,
    WATCH_FILE,
    Live,
    SessionAgent,
    SessionEnded,
    _encode_scan,
    _load,
    _locked,
    _write_atomic,
    agent_name,
    open_session,
    read_state,
    sessions_dir,
)
from harness.workspaces.private_inputs import PrivateInputs
from harness.workspaces.snapshot import WorkspaceWatcher
from harness.workspaces.workspace import create_workspace

# --- start ----------------------------------------------------------------------------------


@dataclass
class Started:
    state: SessionState
    prompt: str


def start(root: Path, case_id: str, out_root: Path, *, name: str = HUMAN_NAME, human: bool | None = None,
          condition: str = "control", skill: tuple[str, str, Path] | None = None, max_wall: float = 1800.0,
          max_steps: int = 50, command_timeout: float = 300.0, sandbox: str = "auto", judge=None,
          judge_options: dict | None = None, join_run: Path | None = None) -> Started:
    """Make the workspace and the run folder, record the task prompt, and return what the driver is shown.

    ``skill`` is (text, sha256, path) for the skill arm; ``judge`` the run's judge hook (or None), recorded
    in the manifest; ``judge_options`` how to build it again when the session ends. ``join_run``: add this
    sample to an earlier session run folder instead of making a new one (``_join``)."""
    from harness.running.runner import CONTROL, SKILL

    agent = agent_name(name)
    human = (name == HUMAN_NAME) if human is None else human
    if condition not in (CONTROL, SKILL):
        raise ConfigError(f"--condition '{condition}': known conditions are {CONTROL}, {SKILL}")
    if (condition == SKILL) != (skill is not None):
        raise ConfigError("--condition skill needs --skill PATH (and --skill needs --condition skill)")
    load_cases(root, [case_id])  # an unknown case fails before anything is made
    box = get_sandbox(sandbox)
    session_id = secrets.token_hex(6)
    folder = sessions_dir() / session_id
    folder.mkdir(parents=True, mode=0o700)
    work_dir = Path(tempfile.mkdtemp(prefix="mldb-session-"))
    try:
        inputs = PrivateInputs(root, work_dir)
        (case,) = load_cases(inputs.root, [case_id])
        ws = create_workspace(case.case_dir, parent=work_dir)
        limits = Limits(max_steps=max_steps, max_wall_seconds=max_wall, command_timeout=command_timeout)
        settings = {"driver": "session", "agent_name": name, "human": human, "session_id": session_id,
                    "tools": ["bash"]}
        cfg = RunConfig(agent=SessionAgent(agent, settings), cases=[case], out_root=Path(out_root),
                        conditions=(condition,), skill_text=skill[0] if skill else None,
                        skill_sha256=skill[1] if skill else None, skill_path=skill[2] if skill else None,
                        limits=limits, sandbox=box, judge=judge, inputs=inputs, work_dir=work_dir)
        if join_run is None:
            run_id = new_run_id(agent)
            run_dir = Path(out_root).resolve() / run_id
            write_manifest(run_dir, build_manifest(cfg, run_id))
            epoch = 0
        else:
            run_dir = Path(join_run).resolve()
            epoch = _join(run_dir, build_manifest(cfg, "-"), case.id, condition)
        write_state(run_dir, "running")  # no scratch folder named: resume must never remove a live session's
        system = render_system(skill[0] if skill else None)
        prompt = render_task((ws / "README.md").read_text(encoding="utf-8"), str(ws), case.manifest.entry_points)
        shown = with_skill_block(prompt + REPORT_INSTRUCTIONS, skill[0] if skill else None)
        name_ = sample_name(case.id, condition, epoch)
        with TranscriptWriter(run_dir / "transcripts" / f"{name_}.jsonl", secrets=harness_secrets()) as tr:
            tr.append("message", role="system", content=system)
            tr.append("message", role="user", content=prompt)
            tr.append("message", role="user", content=REPORT_INSTRUCTIONS.strip())
        jo = judge_options or {}
        state = SessionState(
            session_id=session_id, agent=agent, human=human, case_id=case.id, condition=condition, epoch=epoch,
            run_dir=str(run_dir), project_root=str(Path(root).resolve()), work_dir=str(work_dir), workspace=str(ws),
            inputs_sha256=dict(inputs.sha256),
            started_at=datetime.now(timezone.utc).isoformat(timespec="seconds"), started_epoch_s=time.time(),
            max_wall_s=max_wall, max_steps=max_steps, command_timeout_s=command_timeout, sandbox=box.name,
            judge=judge.spec if judge is not None else None, judge_repeats=jo.get("repeats", 1),
            judge_base_url=jo.get("base_url"), judge_max_input_tokens=jo.get("max_input_tokens", 12000),
            transcript_sha256=sha256_file(run_dir / "transcripts" / f"{name_}.jsonl"))
        _write_atomic(folder / WATCH_FILE, _encode_scan(WorkspaceWatcher(ws).state))
        _write_atomic(folder / STATE_FILE, state.model_dump_json(indent=2) + "\n")
    except BaseException:
        _remove_work_dir(work_dir)
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return Started(state, shown)


SAME_FOR_A_RUN = ("agent", "agent_settings.agent_name", "agent_settings.human", "inputs_sha256",
                  "prompt_template_sha256", "skill_sha256", "judge", "judge_prompt_sha256", "sandbox",
                  "harness_version")


def _field(m, dotted: str):
    head, _, rest = dotted.partition(".")
    value = getattr(m, head)
    return value.get(rest) if rest else value


def _join(run_dir: Path, mine, case_id: str, condition: str) -> int:
    """Add one more sample to a session run (a human baseline over many cases is one run, so one
    leaderboard row): the run must have been made by the same driver over the same inputs, prompt,
    skill, judge and sandbox. Returns the sample's epoch: the first free one for (case, condition)."""
    from harness.core.results import read_manifest

    with _locked(_runs_lock_dir()):
        m = read_manifest(run_dir)
        if m.agent_settings.get("driver") != "session":
            raise ConfigError(f"--run {run_dir}: not a session run (its agent is {m.agent}); sessions join only "
                              "runs that `session start` made")
        differ = [f for f in SAME_FOR_A_RUN if _field(m, f) != _field(mine, f)]
        if differ:
            raise ConfigError(f"--run {run_dir}: this session differs from the run in {', '.join(differ)}; start "
                              "a new run (leave out --run) or match its settings")
        epoch = 0
        while (run_dir / "transcripts" / f"{sample_name(case_id, condition, epoch)}.jsonl").exists():
            epoch += 1
        update = {"case_ids": sorted({*m.case_ids, case_id}), "conditions": sorted({*m.conditions, condition}),
                  "case_sha256": {**m.case_sha256, **mine.case_sha256},
                  "answer_sha256": {**m.answer_sha256, **mine.answer_sha256}, "epochs": max(m.epochs, epoch + 1)}
        m = m.model_copy(update=update)
        m.provenance["tiers"] = tiers_of(m.case_ids)
        write_manifest(run_dir, m)
        (run_dir / "transcripts").mkdir(parents=True, exist_ok=True)
        (run_dir / "transcripts" / f"{sample_name(case_id, condition, epoch)}.jsonl").touch()  # claimed
        return epoch


def _runs_lock_dir() -> Path:
    folder = sessions_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# --- exec, submit, abandon --------------------------------------------------------------------


def exec_command(session_id: str, command: str, judge_factory=None, on_wait=None):
    """Run one command as the built-in agent's bash tool does; returns its ``tool_result`` event.

    A session already over a budget is ended (``limit_reached``, graded) instead: SessionEnded."""
    if not command.strip():
        raise ConfigError("session exec needs a command after '--'")
    with open_session(session_id, on_wait) as live:
        reason = live.over_budget()
        if reason:
            sample = finalize(live, "limit_reached", error=reason, judge_factory=judge_factory)
            raise SessionEnded(f"session {session_id} ended before this command ran: {reason}", sample)
        live.record_outside_edits()
        live.state.steps += 1
        remaining = live.state.max_wall_s - live.elapsed()
        call_id = live.tools.new_call_id()
        try:
            event = live.tools.bash(command, call_id=call_id, timeout=max(1.0, remaining))
        except KeyboardInterrupt:  # the driver pressed Ctrl-C: the command is killed; the call still gets its result
            live.tools._record_changes(call_id)
            live.transcript.append("tool_result", call_id=call_id, error="interrupted by the driver (Ctrl-C)")
            raise
        finally:
            live.save()
        return event


def submit(session_id: str, report_path: Path, judge_factory=None, on_wait=None) -> SampleResult:
    """End the sample with the report in ``report_path`` and grade it. A missing or invalid report is an
    InputError naming the file, and the session stays open."""
    with open_session(session_id, on_wait) as live:
        reason = live.over_budget()
        if reason and not reason.startswith("max_steps"):  # a step budget spent still lets the agent report
            sample = finalize(live, "limit_reached", error=reason, judge_factory=judge_factory)
            raise SessionEnded(f"session {session_id} ended before the report was taken: {reason}", sample)
        if not Path(report_path).exists():
            raise InputError(report_path, "no such report file; the session is still open, submit again")
        report, problem = read_report_file(Path(report_path))
        if report is None:
            raise InputError(report_path, problem.split(": ", 1)[-1] + "; the session is still open, submit again")
        return finalize(live, "completed", report=report, judge_factory=judge_factory)


def abandon(session_id: str, reason: str = "", judge_factory=None, on_wait=None) -> SampleResult:
    with open_session(session_id, on_wait) as live:
        why = "abandoned by the driver" + (f": {reason}" if reason else "")
        return finalize(live, "agent_error", error=why, judge_factory=judge_factory)


def finalize(live: Live, status: str, report: Report | None = None, error: str | None = None,
             judge_factory=None) -> SampleResult:
    """End the sample: last edits, the report, grading with every criterion, the sample appended to
    the run folder, the workspace and private inputs removed. Whatever fails, the session ends with a result."""
    s, tr = live.state, live.transcript
    run_dir = Path(s.run_dir)
    ws = Path(s.workspace)
    live.record_outside_edits()
    remove_paths(ws, (REPORT_FILE,))
    live.tools.watcher.changes()  # the removal above is the harness's, not the agent's
    if report is not None:
        tr.append("report", report=report)
    if status != "completed":
        tr.append("error", error_type=status, message=error or status)
    outcome = AgentOutcome(status=status, report=report, error=error)
    judge = judge_factory(s) if s.judge and judge_factory is not None else None
    cfg = RunConfig(agent=SessionAgent(s.agent, {}), cases=[live.case], out_root=run_dir.parent,
                    limits=live.limits, sandbox=live.sandbox, judge=judge, inputs=live.inputs,
                    work_dir=Path(s.work_dir))
    name = sample_name(s.case_id, s.condition, s.epoch)
    integrity: IntegrityError | None = None
    try:
        outcome, verdicts = grade_outcome(cfg, run_dir, live.case, tr, outcome, ws, f"transcripts/{name}.jsonl",
                                          f"diffs/{name}.patch", live.sandbox)
    except Exception as exc:  # noqa: BLE001 - grading failed: this sample's infra_error, never a lost session
        from harness.running.runner import _all_unscored

        integrity = exc if isinstance(exc, IntegrityError) else None
        reason = f"infra_error: {type(exc).__name__}: {exc}"[:300]
        tr.append("error", error_type="infra_error", message=reason)
        outcome = AgentOutcome(status="infra_error", report=report, error=reason)
        verdicts = _all_unscored(reason)
    tr.close()
    sample = sample_record(s.agent, run_dir, live.case, s.condition, s.epoch, outcome, verdicts, s.started_at,
                           duration_s=live.elapsed())
    append_sample(run_dir, sample)
    write_state(run_dir, "finished")
    s.status, s.ended_status = "ended", sample.status
    live.save()
    _remove_work_dir(Path(s.work_dir))
    if integrity is not None:
        raise integrity
    return sample


def _remove_work_dir(work_dir: Path) -> None:
    inputs = work_dir / "inputs"
    if inputs.exists():
        PrivateInputs.attach(work_dir, work_dir, {}).remove()
    shutil.rmtree(work_dir, ignore_errors=True)


# --- every command: expire what ran out of time; list -----------------------------------------


def open_states() -> list[tuple[Path, SessionState]]:
    root = sessions_dir()
    if not root.is_dir():
        return []
    out = []
    for folder in sorted(root.iterdir()):
        if SESSION_ID.match(folder.name) and (folder / STATE_FILE).is_file():
            try:
                state = read_state(folder)
            except InputError:
                continue
            if state.status == "open":
                out.append((folder, state))
    return out


def expire_overdue(judge_factory=None, skip: str | None = None) -> list[tuple[SessionState, SampleResult | None, str]]:
    """End every open session past its wall budget as ``limit_reached`` (graded). A session whose lock is
    held is left to the command holding it. Returns (state, sample or None, problem) per session ended."""
    ended = []
    for folder, state in open_states():
        if state.session_id == skip or time.time() - state.started_epoch_s < state.max_wall_s:
            continue
        with _locked(folder, wait=False) as got:
            if not got:
                continue
            state = read_state(folder)
            if state.status != "open":
                continue
            reason = (f"max_wall_seconds ({state.max_wall_s:g}) reached: {time.time() - state.started_epoch_s:.0f} s "
                      "since the session started (ended by a later session command)")
            try:
                live = _load(folder, state)
            except BenchError as exc:  # its state cannot be trusted: end it, and say why
                state.status, state.ended_status = "ended", "abandoned (unloadable)"
                _write_atomic(folder / STATE_FILE, state.model_dump_json(indent=2) + "\n")
                _remove_work_dir(Path(state.work_dir))
                ended.append((state, None, str(exc)))
                continue
            try:
                ended.append((state, finalize(live, "limit_reached", error=reason, judge_factory=judge_factory), ""))
            except IntegrityError as exc:
                ended.append((state, None, str(exc)))
            finally:
                live.transcript.close()
    return ended
