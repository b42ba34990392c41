"""What a session keeps between its processes, outside the workspace: its folder and state, the watcher's last
look at the workspace, and the lock that serialises every command on a session (``harness.running.session``)."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from harness.agents.base import Limits, Toolbox
from harness.agents.cli_base import REPORT_FILE
from harness.core.cases import Case, load_cases
from harness.core.errors import BenchError, ConfigError, InputError, IntegrityError
from harness.core.hashing import sha256_file
from harness.core.transcript import TranscriptWriter, harness_secrets
from harness.isolation.sandbox import get_sandbox
from harness.models import SampleResult, SessionState
from harness.running.runner import sample_name
from harness.workspaces.private_inputs import PrivateInputs
from harness.workspaces.snapshot import WorkspaceWatcher

SESSIONS_ENV = "MLDB_SESSIONS_DIR"
STATE_FILE, WATCH_FILE, LOCK_FILE = "state.json", "watch.json", "lock"
SESSION_ID = re.compile(r"^[0-9a-f]{12}$")
AGENT_PREFIX = "session:"
HUMAN_NAME = "human"


class SessionEnded(BenchError):
    """The session is over (now or before); ``sample`` is its result when this call ended it."""

    def __init__(self, message: str, sample: SampleResult | None = None):
        self.sample = sample
        super().__init__(message)


def sessions_dir() -> Path:
    """Where session state lives: ``$MLDB_SESSIONS_DIR``, else the user's cache (never in a workspace,
    and not in the sandbox's view: only the workspace and a private /tmp are)."""
    env = os.environ.get(SESSIONS_ENV)
    return Path(env) if env else Path.home() / ".cache" / "ml-debug-bench" / "sessions"


def agent_name(name: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", name or ""):
        raise ConfigError(f"--agent-name '{name}': use letters, digits, '.', '_' or '-' (e.g. human, claude-opus)")
    return AGENT_PREFIX + name


@dataclass
class SessionAgent:
    """What the run's manifest and samples say about who drove the session (no ``run``: it is driven from outside)."""

    name: str
    settings: dict[str, Any]


# --- persisted watcher state ---------------------------------------------------------------


def _encode_scan(state: dict[str, tuple]) -> str:
    def enc(v):
        return {"b64": base64.b64encode(v).decode()} if isinstance(v, bytes) else v
    return json.dumps({rel: [enc(v) for v in sig] for rel, sig in state.items()})


def _decode_scan(text: str) -> dict[str, tuple]:
    def dec(v):
        return base64.b64decode(v["b64"]) if isinstance(v, dict) else v
    return {rel: tuple(dec(v) for v in sig) for rel, sig in json.loads(text).items()}


class _SessionWatcher(WorkspaceWatcher):
    """The workspace watcher, resumed from the last process's look; ``report.json`` is the harness's file
    (read and removed at submit), so it is never recorded as the agent's edit, as for CLI agents."""

    def __init__(self, root: Path, state: dict[str, tuple]):
        self.root = Path(root)
        self.state = state

    def changes(self) -> list[tuple[str, str]]:
        return [c for c in super().changes() if c[0] != REPORT_FILE]


# --- one open session, inside its lock -------------------------------------------------------


@dataclass
class Live:
    """An open session loaded by one process, with its lock held."""

    dir: Path
    state: SessionState
    case: Case
    inputs: PrivateInputs
    sandbox: Any
    transcript: TranscriptWriter
    tools: Toolbox

    @property
    def limits(self) -> Limits:
        return limits_of(self.state)

    def elapsed(self) -> float:
        return time.time() - self.state.started_epoch_s

    def over_budget(self) -> str | None:
        s = self.state
        if self.elapsed() >= s.max_wall_s:
            return f"max_wall_seconds ({s.max_wall_s:g}) reached: {self.elapsed():.0f} s since the session started"
        if s.steps >= s.max_steps:
            return f"max_steps ({s.max_steps}) reached"
        return self.tools.disk_problem

    def save(self) -> None:
        self.state.transcript_sha256 = sha256_file(self.transcript.path)
        _write_atomic(self.dir / WATCH_FILE, _encode_scan(self.tools.watcher.state))
        _write_atomic(self.dir / STATE_FILE, self.state.model_dump_json(indent=2) + "\n")

    def record_outside_edits(self) -> None:
        """Files changed since the last command by anything but a session command (a person's editor):
        recorded before what comes next, with no call id."""
        for path, diff in self.tools.watcher.changes():
            self.transcript.append("file_edit", call_id=None, path=path, diff=diff)


def limits_of(s: SessionState) -> Limits:
    return Limits(max_steps=s.max_steps, max_wall_seconds=s.max_wall_s, command_timeout=s.command_timeout_s)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _session_dir(session_id: str) -> Path:
    folder = sessions_dir() / session_id
    if not SESSION_ID.match(session_id or "") or not (folder / STATE_FILE).is_file():
        raise ConfigError(f"unknown session '{session_id}' (no such session in {sessions_dir()}; "
                          f"`ml-debug-bench session list` shows the open ones)")
    return folder


def read_state(folder: Path) -> SessionState:
    path = folder / STATE_FILE
    try:
        return SessionState.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(path, f"not a readable session state: {str(exc).splitlines()[0]}") from exc


@contextmanager
def _locked(folder: Path, wait: bool = True, on_wait: Callable[[], None] | None = None) -> Iterator[bool]:
    """The session's lock (flock: released by the kernel if the holder dies). Yields False when
    ``wait`` is off and another command holds it."""
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                yield False
                return
            if on_wait:
                on_wait()
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield True
    finally:
        os.close(fd)


def _load(folder: Path, state: SessionState) -> Live:
    """Everything a command needs, after checking nothing the session trusts changed between calls."""
    inputs = PrivateInputs.attach(Path(state.project_root), Path(state.work_dir), state.inputs_sha256)
    inputs.check()
    run_dir = Path(state.run_dir)
    name = sample_name(state.case_id, state.condition, state.epoch)
    path = run_dir / "transcripts" / f"{name}.jsonl"
    if not path.is_file() or sha256_file(path) != state.transcript_sha256:
        raise IntegrityError(f"session {state.session_id}: its transcript {path} is missing or changed since the "
                             "harness last wrote it; the session cannot be trusted any more")
    (case,) = load_cases(inputs.root, [state.case_id])
    box = get_sandbox("required" if state.sandbox == "bwrap" else "none")
    transcript = TranscriptWriter.reopen(path, harness_secrets(), time.time() - state.started_epoch_s)
    tools = Toolbox(Path(state.workspace), transcript, box, limits_of(state))
    tools.watcher = _SessionWatcher(Path(state.workspace), _decode_scan((folder / WATCH_FILE).read_text("utf-8")))
    return Live(folder, state, case, inputs, box, transcript, tools)


@contextmanager
def open_session(session_id: str, on_wait: Callable[[], None] | None = None) -> Iterator[Live]:
    folder = _session_dir(session_id)
    with _locked(folder, wait=True, on_wait=on_wait):
        state = read_state(folder)
        if state.status != "open":
            raise SessionEnded(f"session {session_id} has already ended ({state.ended_status}); its sample is in "
                               f"{state.run_dir}")
        live = _load(folder, state)
        try:
            yield live
        finally:
            live.transcript.close()
