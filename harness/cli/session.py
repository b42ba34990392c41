"""``ml-debug-bench session``: drive one sample from outside, one command at a time (harness.running.session).

Exit codes: 0 done (for ``exec``: the command ran, whatever its own exit code, which is printed);
1 the session has ended (a budget ran out, or it was already over); 2 bad input (unknown id, missing
or invalid report, bad flag). Tool output is printed as plain text, never as console markup.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from harness.cli.common import DEFAULT_JUDGE_INPUT_TOKENS, app, err, fail
from harness.core.errors import BenchError

session_app = typer.Typer(add_completion=False, no_args_is_help=True,
                          help="Drive one sample from outside, one command at a time (a model, a person, a reviewer).")
app.add_typer(session_app, name="session")


def _judge_factory(state):
    """The judge a session was started with, built when it ends; without its key, a warning and the usual
    "not judged" (the run can be judged later with ``ml-debug-bench judge``)."""
    from harness.api import run_judge_hook

    try:
        return run_judge_hook(state.judge, state.judge_repeats, state.agent, state.judge_base_url,
                              state.judge_max_input_tokens, warn=lambda m: err.print(f"[yellow]warning:[/] {m}"))
    except BenchError as exc:
        err.print(f"[yellow]warning:[/] the judge {escape(state.judge)} could not be built ({escape(str(exc))}); "
                  f"judge later with: ml-debug-bench judge {escape(state.run_dir)} --judge {escape(state.judge)}")
        return None


def _expire(skip: str | None = None) -> None:
    """Every session command first ends (and grades) the open sessions that ran past their wall budget."""
    from harness.running.session import expire_overdue

    for state, sample, problem in expire_overdue(_judge_factory, skip):
        what = f"ended limit_reached, graded into {state.run_dir}" if sample else f"ended: {problem}"
        err.print(f"[yellow]session {state.session_id}[/] ({escape(state.agent)}, {state.case_id}) ran past its "
                  f"--max-wall of {state.max_wall_s:g} s: {escape(what)}")


def _waiting(session_id: str):
    return lambda: err.print(f"session {session_id}: another command is running in it; waiting for it to finish")


def _ended(exc) -> None:
    err.print(f"[red]{escape(str(exc))}[/]")
    if getattr(exc, "sample", None) is not None:
        _print_sample(exc.sample)
    raise typer.Exit(1)


def _print_sample(sample) -> None:
    err.print(f"sample {escape(sample.sample_id)}: {sample.status}"
              + (f" ({escape(sample.error)})" if sample.error else ""))
    for name, v in sample.verdicts.items():
        err.print(f"  {name}: {v.status}" + (f" ({escape(v.reason)})" if v.reason and v.status == "unscored" else ""))


@session_app.command("start")
def start_cmd(
    case_id: str = typer.Argument(..., help="the case to work on, e.g. case_01"),
    condition: str = typer.Option("control", "--condition", help="control | skill (skill needs --skill)"),
    skill: Optional[Path] = typer.Option(None, "--skill", help="skill markdown file, or a folder holding SKILL.md"),
    out_dir: Path = typer.Option(Path("results"), "--out", help="folder that holds run folders"),
    join_run: Optional[Path] = typer.Option(None, "--run", help="add this sample to an earlier session run folder "
                                                                "(same driver and settings), e.g. a human baseline's"),
    max_wall: float = typer.Option(1800.0, "--max-wall", help="wall-clock budget from start, seconds (time between "
                                                              "calls counts)"),
    max_steps: int = typer.Option(50, "--max-steps", min=1, help="exec calls allowed"),
    command_timeout: float = typer.Option(300.0, "--command-timeout", help="per-command timeout, seconds"),
    agent_name: str = typer.Option("human", "--agent-name", help="who drives it: the run's agent is session:NAME "
                                                                 "(e.g. human, claude-opus)"),
    human: Optional[bool] = typer.Option(None, "--human/--not-human", help="a person drives it (default: only when "
                                                                           "--agent-name is human)"),
    sandbox: str = typer.Option("auto", help="auto | required | none"),
    judge: Optional[str] = typer.Option(None, "--judge", help="grade the LLM criteria at the end: openai:MODEL | "
                                                              "anthropic:MODEL"),
    judge_repeats: int = typer.Option(1, "--judge-repeats", min=1),
    judge_base_url: Optional[str] = typer.Option(None, "--judge-base-url"),
    judge_max_input_tokens: int = typer.Option(DEFAULT_JUDGE_INPUT_TOKENS, "--judge-max-input-tokens", min=1000),
    as_json: bool = typer.Option(False, "--json", help="print {session, workspace, run, prompt} as JSON"),
):
    """Make the workspace and run folder; print the session id, the workspace and the task prompt."""
    from harness.api import run_judge_hook
    from harness.core.cases import find_root
    from harness.core.skill import load_skill
    from harness.running.session import start

    _expire()
    if max_wall <= 0 or command_timeout <= 0:
        fail(ValueError("--max-wall and --command-timeout must be positive"))
    try:
        if out_dir.exists() and not out_dir.is_dir():
            raise BenchError(f"--out {out_dir}: not a folder")
        loaded = None
        if skill is not None:
            text, sha = load_skill(skill)
            loaded = (text, sha, skill.resolve())
        hook = run_judge_hook(judge, judge_repeats, f"session:{agent_name}", judge_base_url, judge_max_input_tokens,
                              warn=lambda m: err.print(f"[yellow]warning:[/] {m}"))
        started = start(find_root(), case_id, out_dir, name=agent_name, human=human, condition=condition,
                        skill=loaded, max_wall=max_wall, max_steps=max_steps, command_timeout=command_timeout,
                        sandbox=sandbox, judge=hook,
                        judge_options={"repeats": judge_repeats, "base_url": judge_base_url,
                                       "max_input_tokens": judge_max_input_tokens}, join_run=join_run)
    except BenchError as exc:
        fail(exc)
    s = started.state
    if s.sandbox == "none":
        err.print("[yellow]warning:[/] commands are not isolated (sandbox: none); the session's state and the "
                  "answers are reachable from them. Tampering is detected, not prevented.")
    if as_json:
        print(json.dumps({"session": s.session_id, "workspace": s.workspace, "run": s.run_dir,
                          "prompt": started.prompt}))
        return
    print(f"session: {s.session_id}\nworkspace: {s.workspace}\nrun: {s.run_dir}\n"
          f"budget: {s.max_wall_s:g} s wall, {s.max_steps} commands\n--- task prompt ---\n{started.prompt}")


@session_app.command("exec")
def exec_cmd(
    session_id: str = typer.Argument(..., help="the id `session start` printed"),
    command: list[str] = typer.Argument(..., help="the command, after '--' (its words are joined with spaces, as "
                                             "ssh does); '-' reads the whole command from standard input "
                                             "(multi-line scripts, no quoting)"),
    as_json: bool = typer.Option(False, "--json", help="print the tool result as JSON"),
):
    """Run one command in the session's workspace, exactly as the built-in agent's bash tool does."""
    from harness.agents.llm_tools import result_text
    from harness.running.session import SessionEnded, exec_command

    _expire(skip=session_id)
    words = command[1:] if command[:1] == ["--"] else command  # click keeps the '--' when options stop at the id
    text = sys.stdin.read() if words == ["-"] else " ".join(words)
    if not text.strip():
        fail(BenchError("no command: give it after '--', or '-' and the command on standard input"))
    try:
        event = exec_command(session_id, text, _judge_factory, _waiting(session_id))
    except SessionEnded as exc:
        _ended(exc)
    except BenchError as exc:
        fail(exc)
    if as_json:
        print(json.dumps(event.model_dump(include={"exit_code", "stdout", "stderr", "duration_s", "timed_out",
                                                    "truncated", "stdout_bytes", "stderr_bytes"})))
    else:
        print(result_text(event))


@session_app.command("submit")
def submit_cmd(
    session_id: str = typer.Argument(...),
    report: Path = typer.Argument(..., help="the report JSON (root_cause, location, fix, evidence), e.g. "
                                            "WORKSPACE/report.json"),
):
    """End the sample with this report and grade it with every criterion."""
    from harness.cli.results import print_results
    from harness.running.session import SessionEnded, read_state, sessions_dir, submit

    _expire(skip=session_id)
    try:
        sample = submit(session_id, report, _judge_factory, _waiting(session_id))
    except SessionEnded as exc:
        _ended(exc)
    except BenchError as exc:
        fail(exc)
    run_dir = read_state(sessions_dir() / session_id).run_dir
    print_results(Path(run_dir))
    print(f"sample {sample.sample_id}: {sample.status}\nresults: {run_dir}")


@session_app.command("abandon")
def abandon_cmd(session_id: str = typer.Argument(...),
                reason: str = typer.Option("", "--reason", help="why, recorded in the transcript")):
    """End the sample as agent_error (it is still graded on what it left)."""
    from harness.running.session import SessionEnded, abandon

    _expire(skip=session_id)
    try:
        sample = abandon(session_id, reason, _judge_factory, _waiting(session_id))
    except SessionEnded as exc:
        _ended(exc)
    except BenchError as exc:
        fail(exc)
    _print_sample(sample)


@session_app.command("list")
def list_cmd():
    """Every open session, with its age and what is left of its budgets."""
    from harness.running.session import open_states

    _expire()
    rows = open_states()
    if not rows:
        print("no open sessions")
        return
    print(f"{'session':<13} {'agent':<24} {'case':<16} {'age_s':>7} {'wall_left_s':>11} {'steps':>7}  workspace")
    now = time.time()
    for _, s in rows:
        age = now - s.started_epoch_s
        print(f"{s.session_id:<13} {s.agent:<24} {s.case_id:<16} {age:>7.0f} {max(0.0, s.max_wall_s - age):>11.0f} "
              f"{s.steps:>3}/{s.max_steps:<3}  {s.workspace}")
