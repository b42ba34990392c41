"""What the adapters for external agent CLIs (Claude Code, Codex, mini-swe-agent, ``cmd:``) share.

An external CLI is the whole agent: it talks to the model and runs its own tools. The harness
cannot step it, so it runs it once per sample, under the same sandbox as every agent command
(``harness.sandbox``: the workspace read-write, the CLI's install read-only, answers/ and the
repository absent), and follows its native log as it is written:

* the CLI's stdout goes to a log file in the sample's private /tmp; a thread reads new lines
  as they arrive and a per-tool parser turns them into transcript events;
* after every tool result the parser reports, the workspace is compared with its last state
  (``harness.snapshot``) and each changed file becomes a ``file_edit`` event, so edits made by
  any tool of the CLI are recorded from the files, not from the CLI's own account;
* the model endpoint is reached through a relay: under bubblewrap (no network at all) a unix
  socket in the sample's /tmp, which a small forwarder inside the sandbox exposes on
  127.0.0.1 at the endpoint's port; in the plain fallback a loopback TCP port. Only the one
  endpoint host:port is reachable that way; everything else stays offline under bubblewrap;
* step and token budgets are enforced from the parsed log: past one, the harness creates a
  stop file that the launch script polls, and the CLI is killed. The wall budget is the
  sandbox's timeout; the process group (and cgroup) kill is the sandbox's.

At the end the agent's ``report.json`` is read and removed, the installed skill files are
removed, and the last assistant message stays in the transcript for the judge.
"""

from __future__ import annotations

import json
import math
import os
import shlex
import shutil
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit, urlunsplit

from pydantic import ValidationError

from harness.agents.base import AgentOutcome, AgentTask
from harness.errors import ConfigError
from harness.execution import ExecResult
from harness.models import Report, TokenUsage
from harness.sandbox import Mount, scratch_for
from harness.snapshot import tree_bytes

AGENTS_DIR_ENV = "MLDB_AGENTS_DIR"
REPORT_FILE = "report.json"
CONTROL_DIR = ".mldb"  # in the sample's private /tmp: prompt, launch script, log, stop file, relay socket
LOG_POLL_S = 0.1

REPORT_INSTRUCTIONS = f"""

There is no submit_report tool in this environment. When you are finished, write your report as a \
JSON object to the file `{REPORT_FILE}` at the top of the repository, with exactly these string fields:
{{"root_cause": "what is wrong and why it produces the symptom", \
"location": "file:line or file:start-end; several separated by ';'", \
"fix": "what you changed", "evidence": "what you observed that supports your diagnosis"}}
"""


def with_skill_block(prompt: str, skill_text: str | None) -> str:
    """For a tool with no skill mechanism of its own (mini-swe-agent, ``cmd:``): the skill arm's text
    in the same ``<skill>`` block the built-in agent gets in its system prompt, after the task."""
    from harness.prompts import SKILL_BLOCK

    return prompt + SKILL_BLOCK.format(skill=skill_text.strip()) if skill_text else prompt


def agents_dir() -> Path:
    """Where ``.ci/setup.d/agent_clis.sh`` installs the pinned npm CLIs (and tests look for them)."""
    env = os.environ.get(AGENTS_DIR_ENV)
    return Path(env) if env else Path.home() / ".cache" / "ml-debug-bench" / "agents"


def find_cli(binary: str, install: str) -> Path:
    """The CLI from the agents cache, else from PATH; a ConfigError naming the install command."""
    cached = agents_dir() / "node_modules" / ".bin" / binary
    if cached.exists():
        return cached
    found = shutil.which(binary)
    if found:
        return Path(found)
    raise ConfigError(f"'{binary}' not found in {cached.parent} nor on PATH; install it with: "
                      f"npm install --prefix {agents_dir()} {install}  (or set {AGENTS_DIR_ENV})")


def cli_version(exe: Path | str, args: tuple[str, ...] = ("--version",)) -> str:
    """``exe --version`` as printed, for the manifest; a CLI that cannot even say that is a ConfigError."""
    try:
        proc = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=60,
                              env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(Path.home())})
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ConfigError(f"cannot run '{exe} {' '.join(args)}': {exc}") from exc
    text = (proc.stdout or proc.stderr).strip()
    if proc.returncode != 0 or not text:
        raise ConfigError(f"'{exe} {' '.join(args)}' failed ({proc.returncode}): {proc.stderr.strip()[:300]}")
    return text.splitlines()[0]


def install_root(exe: Path) -> Path:
    """The folder to mount read-only for a CLI: its npm prefix (node_modules' parent) or its own folder."""
    real = Path(exe).resolve()
    for parent in [Path(exe).absolute(), *Path(exe).absolute().parents, real, *real.parents]:
        if parent.name == "node_modules":
            return parent.parent
    return real.parent


# --- the model endpoint relay --------------------------------------------------------


@dataclass(frozen=True)
class Endpoint:
    """A model base URL split into what the relay needs."""

    url: str
    host: str
    port: int

    @classmethod
    def parse(cls, url: str) -> "Endpoint":
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"--base-url '{url}' is not an http(s) URL")
        return cls(url, parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))

    def via(self, host: str, port: int) -> str:
        """The same URL with its host:port replaced (what the CLI is told to call)."""
        parts = urlsplit(self.url)
        return urlunsplit(parts._replace(netloc=f"{host}:{port}"))


def _pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (dst, src):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


MAX_RELAY_CONNECTIONS = 16  # per sample: a CLI agent keeps a few open; more is a flood, refused


class HostRelay:
    """Forwards each connection on a unix socket (bubblewrap) or a loopback TCP port (plain) to the
    endpoint. Bytes are relayed as they are, so it works for any HTTP API, streaming included.

    The agent controls how many connections it opens, and every one costs the harness two file
    descriptors shared with the other samples' graders: so at most ``MAX_RELAY_CONNECTIONS`` are
    relayed at once (more are closed at once), each is closed when done, and an accept error
    (e.g. EMFILE) is waited out rather than ending the relay."""

    def __init__(self, endpoint: Endpoint, unix_path: Path | None = None):
        self.endpoint = endpoint
        if unix_path is not None:
            unix_path.unlink(missing_ok=True)
            self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.server.bind(str(unix_path))
            os.chmod(unix_path, 0o600)
        else:
            self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.server.bind(("127.0.0.1", 0))
        self.server.listen(64)
        self.port = self.server.getsockname()[1] if unix_path is None else None
        self.connections = 0
        self.refused = 0
        self._open = threading.BoundedSemaphore(MAX_RELAY_CONNECTIONS)
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop:
            try:
                client, _ = self.server.accept()
            except OSError:
                if self._stop:
                    return
                time.sleep(0.05)
                continue
            if not self._open.acquire(blocking=False):
                self.refused += 1
                client.close()
                continue
            try:
                upstream = socket.create_connection((self.endpoint.host, self.endpoint.port), timeout=30)
                upstream.settimeout(None)
                upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                client.close()
                self._open.release()
                continue
            self.connections += 1
            threading.Thread(target=self._relay, args=(client, upstream), daemon=True).start()

    def _relay(self, client: socket.socket, upstream: socket.socket) -> None:
        back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
        back.start()
        _pump(client, upstream)
        back.join()
        for s in (client, upstream):
            s.close()
        self._open.release()

    def close(self) -> None:
        self._stop = True
        try:
            self.server.close()
        except OSError:
            pass


# Runs inside the sandbox with the harness's Python: listen on 127.0.0.1:PORT (the sandbox's own
# loopback) and forward each connection to the host relay's unix socket. Stdlib only.
INSIDE_FORWARDER = r'''
import os, socket, sys, threading
port, sock_path, ready = int(sys.argv[1]), sys.argv[2], sys.argv[3]
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", port)); srv.listen(64)
open(ready, "w").close()
def pump(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d: break
            b.sendall(d)
    except OSError: pass
    finally:
        for s in (a, b):
            try: s.shutdown(socket.SHUT_RDWR)
            except OSError: pass
while True:
    c, _ = srv.accept()
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    u = socket.socket(socket.AF_UNIX)
    try: u.connect(sock_path)
    except OSError: c.close(); continue
    threading.Thread(target=pump, args=(c, u), daemon=True).start()
    threading.Thread(target=pump, args=(u, c), daemon=True).start()
'''


# --- following the native log ----------------------------------------------------------

MAX_COUNT = 10**9  # tokens in one usage record; more is not a real model call
MAX_DOLLARS = 10**6


def count(value: Any) -> int:
    """A token count read from a CLI's log, which code in the sandbox can write: anything that is not a
    number in [0, MAX_COUNT] counts as 0, so a forged log cannot make a run look free or absurd."""
    try:
        n = float(value or 0)
    except (TypeError, ValueError):
        return 0
    return int(n) if math.isfinite(n) and 0 <= n <= MAX_COUNT else 0


def dollars(value: Any) -> float | None:
    """A cost read from a CLI's log: a finite number in [0, MAX_DOLLARS], else unknown (None)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and 0 <= value <= MAX_DOLLARS else None



@dataclass
class Tally:
    """What a parser has counted so far, for the budgets and the outcome."""

    steps: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    last_assistant: str = ""
    final_text: str | None = None
    cli_error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class EventSink:
    """How a parser writes transcript events: tool results also record the workspace's changes."""

    def __init__(self, task: AgentTask, hidden: Callable[[str], bool]):
        self.task = task
        self.tr = task.transcript
        self.hidden = hidden
        self.tally = Tally()
        self.open_calls: set[str] = set()
        # False when the log is only read after the CLI exited: changes are then recorded once, at the end
        self.track_edits = True

    def message(self, text: str, role: str = "assistant") -> None:
        if text and text.strip():
            self.tr.append("message", role=role, content=text)
            if role == "assistant":
                self.tally.last_assistant = text

    def tool_call(self, call_id: str, name: str, arguments: dict) -> None:
        self.open_calls.add(call_id)
        self.tr.append("tool_call", call_id=call_id, name=name,
                       arguments=arguments if isinstance(arguments, dict) else {"input": arguments})

    def tool_result(self, call_id: str, stdout: str = "", stderr: str = "", exit_code: int | None = None,
                    error: str | None = None, duration_s: float = 0.0) -> None:
        self.open_calls.discard(call_id)
        if self.track_edits:
            self.record_changes(call_id)
        self.tr.append("tool_result", call_id=call_id, stdout=stdout or "", stderr=stderr or "",
                       exit_code=exit_code, error=error, duration_s=duration_s,
                       stdout_bytes=len((stdout or "").encode()), stderr_bytes=len((stderr or "").encode()))

    def usage(self, model: str, input_tokens: int, output_tokens: int, cost_usd: float | None = None) -> None:
        input_tokens, output_tokens, cost_usd = count(input_tokens), count(output_tokens), dollars(cost_usd)
        self.tally.input_tokens += input_tokens
        self.tally.output_tokens += output_tokens
        self.tr.append("usage", model=model or "?", input_tokens=input_tokens, output_tokens=output_tokens,
                       cost_usd=cost_usd)

    def error(self, error_type: str, message: str) -> None:
        self.tr.append("error", error_type=error_type, message=message[:4000])

    def record_changes(self, call_id: str | None) -> None:
        """One ``file_edit`` per file changed since the last look, except the harness's own files."""
        for path, diff in self.task.tools.watcher.changes():
            if not self.hidden(path):
                self.tr.append("file_edit", call_id=call_id, path=path, diff=diff)


class LogParser:
    """One per sample: fed each complete line of the CLI's log, in order."""

    def __init__(self, sink: EventSink):
        self.sink = sink

    def feed(self, line: str) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def finish(self) -> None:
        """Called once after the CLI exited and the log was read to its end."""


class LogFollower:
    """Reads a growing file line by line from another thread's point of view: call ``poll()``."""

    def __init__(self, path: Path, feed: Callable[[str], None]):
        self.path, self.feed = path, feed
        self.offset = 0
        self.partial = b""

    def poll(self, final: bool = False) -> None:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read()
        except OSError:
            return
        self.offset += len(data)
        data = self.partial + data
        lines = data.split(b"\n")
        self.partial = lines.pop()
        if final and self.partial:
            lines.append(self.partial)
            self.partial = b""
        for raw in lines:
            if raw.strip():
                self.feed(raw.decode("utf-8", errors="replace"))


# --- running one CLI in the sandbox ------------------------------------------------------


@dataclass
class Launch:
    """What an adapter asks to run: argv (strings; ``{tmp}`` is the sandbox-side private /tmp),
    extra environment, files to write in the control folder, and whether stdin is the prompt."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    prompt_on_stdin: bool = True
    log_stream: str = "stdout"  # which stream is the native log ("stdout" or "stderr")
    task_arg: str = ""  # a shell fragment appended unquoted, e.g. -t "$(cat .../prompt.txt)"


def inside_tmp(sandbox, scratch: Path) -> str:
    """The sample's private /tmp as the CLI sees it: /tmp under bubblewrap, the host folder otherwise."""
    return "/tmp" if getattr(sandbox, "name", "") == "bwrap" else str(scratch)


class CLIRunner:
    """Runs one CLI invocation for one sample and follows its log into the transcript."""

    def __init__(self, task: AgentTask, install: Path | None, endpoint: Endpoint | None,
                 skill_paths: tuple[str, ...] = ()):
        self.task = task
        self.install = install
        self.endpoint = endpoint
        self.skill_paths = skill_paths
        self.scratch = scratch_for(task.workspace)
        self.control = self.scratch / CONTROL_DIR
        self.control.mkdir(parents=True, exist_ok=True)
        self.tmp = inside_tmp(task.tools.sandbox, self.scratch)
        self.relay: HostRelay | None = None
        self.stop_reason: str | None = None

    def hidden(self, rel: str) -> bool:
        """The harness's own files in the workspace: never recorded as the agent's edits."""
        return rel == REPORT_FILE or any(rel == p or rel.startswith(p.rstrip("/") + "/") for p in self.skill_paths)

    def model_url(self) -> str | None:
        """The base URL the CLI is given: through the relay (bubblewrap: the endpoint's own port on the
        sandbox's loopback; plain: the host relay's loopback port)."""
        if self.endpoint is None:
            return None
        if self.endpoint.url.startswith("https://") and self.tmp == "/tmp":
            raise ConfigError(f"--base-url {self.endpoint.url}: under bubblewrap a CLI agent reaches its model "
                              "through a plain-TCP relay, so the endpoint must be http:// (a local server or "
                              "proxy); use --sandbox none for an https endpoint")
        if self.tmp == "/tmp":
            self.relay = HostRelay(self.endpoint, self.control / "relay.sock")
            return self.endpoint.via("127.0.0.1", self.endpoint.port)
        self.relay = HostRelay(self.endpoint)
        return self.endpoint.via("127.0.0.1", self.relay.port)

    def launch_script(self, launch: Launch) -> str:
        ctl = f"{self.tmp}/{CONTROL_DIR}"
        lines = ["set -u", f"cd {shlex.quote(str(self.task.workspace))}"]
        if self.relay is not None and self.relay.port is None:
            (self.control / "forward.py").write_text(INSIDE_FORWARDER, encoding="utf-8")
            lines += [f"{shlex.quote(sys.executable)} {ctl}/forward.py {self.endpoint.port} {ctl}/relay.sock "
                      f"{ctl}/relay.ready >/dev/null 2>&1 &",
                      f"for i in $(seq 200); do [ -e {ctl}/relay.ready ] && break; sleep 0.05; done"]
        lines += [f"set -a; . {ctl}/env; set +a; rm -f {ctl}/env"]
        argv = " ".join(shlex.quote(a.replace("{tmp}", self.tmp)) for a in launch.argv) + " " + launch.task_arg
        stdin = f"< {ctl}/prompt.txt" if launch.prompt_on_stdin else "< /dev/null"
        out, err = (f"{ctl}/log", f"{ctl}/other") if launch.log_stream == "stdout" else (f"{ctl}/other", f"{ctl}/log")
        lines += [f"{argv} {stdin} > {out} 2> {err} &", "pid=$!",
                  f'while kill -0 "$pid" 2>/dev/null; do if [ -e {ctl}/stop ]; then kill -KILL "$pid"; fi; sleep 0.2; done',
                  'wait "$pid"']
        return "\n".join(lines) + "\n"

    def run(self, launch: Launch, parser: LogParser, max_steps: int | None) -> ExecResult:
        sink = parser.sink
        limits = self.task.limits
        env_lines = [f"export {k}={shlex.quote(v.replace('{tmp}', self.tmp))}" for k, v in launch.env.items()]
        env_file = self.control / "env"
        env_file.write_text("\n".join(env_lines) + "\n", encoding="utf-8")
        os.chmod(env_file, 0o600)
        (self.control / "prompt.txt").write_text(self.task.prompt, encoding="utf-8")
        for name, text in launch.files.items():
            target = self.scratch / name.replace("{tmp}/", "")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        for name in ("log", "other", "stop", "relay.ready"):
            (self.control / name).unlink(missing_ok=True)
        script = self.launch_script(launch)
        mounts = [Mount(self.task.workspace, writable=True)]
        if self.install is not None:
            mounts.append(Mount(self.install))
        result: dict[str, ExecResult | BaseException] = {}

        def target():
            try:
                # a CLI mostly waits on its model, so it holds no CPU slot of a parallel run
                box = getattr(self.task.tools.sandbox, "unslotted", self.task.tools.sandbox)
                result["r"] = box.run_argv(
                    ["bash", "-c", script], self.task.workspace, limits.max_wall_seconds, limits.output_cap,
                    mounts=tuple(mounts), command=" ".join(launch.argv))
            except BaseException as exc:  # re-raised in the caller's thread
                result["r"] = exc

        follower = LogFollower(self.control / "log", parser.feed)
        worker = threading.Thread(target=target, daemon=True)
        worker.start()
        try:
            while worker.is_alive():
                worker.join(LOG_POLL_S)
                follower.poll()
                self.check_budgets(sink, max_steps)
            follower.poll(final=True)
            parser.finish()
        finally:
            if self.relay is not None:
                self.relay.close()
        res = result["r"]
        if isinstance(res, BaseException):
            raise res
        return res

    def check_budgets(self, sink: EventSink, max_steps: int | None) -> None:
        if self.stop_reason is not None:
            return
        t, lim = sink.tally, self.task.limits
        reason = None
        if max_steps is not None and t.steps > max_steps:
            reason = f"max_steps ({max_steps}) reached"
        elif lim.max_tokens is not None and t.input_tokens + t.output_tokens >= lim.max_tokens:
            reason = f"max_tokens ({lim.max_tokens}) reached: {t.input_tokens + t.output_tokens} used"
        else:
            scratch = self.scratch
            if tree_bytes(self.task.workspace, scratch) > lim.max_disk_bytes:
                reason = f"max_disk_bytes ({lim.max_disk_bytes}) exceeded"
        if reason:
            self.stop_reason = reason
            (self.control / "stop").touch()

    def log_text(self, name: str = "other", cap: int = 64 * 1024) -> str:
        try:
            data = (self.control / name).read_bytes()
        except OSError:
            return ""
        return data[-cap:].decode("utf-8", errors="replace")


# --- the end of a sample -----------------------------------------------------------------


def read_report(workspace: Path) -> tuple[Report | None, str | None]:
    """The agent's report.json -> (Report, None) or (None, why it is missing or invalid)."""
    return read_report_file(workspace / REPORT_FILE)


def read_report_file(path: Path) -> tuple[Report | None, str | None]:
    """A report JSON file anywhere (``session submit`` takes its path) -> (Report, None) or (None, why not)."""
    path = Path(path)
    if path.is_symlink() or (path.exists() and not path.is_file()):
        return None, f"report_invalid: {path.name} is not a regular file"
    if not path.exists():
        return None, f"report_missing: the agent wrote no {path.name}"
    try:
        if path.stat().st_size > 1_000_000:
            return None, f"report_invalid: {path.name} is larger than 1 MB"
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict):  # tolerate extra keys a CLI adds (the report model forbids them)
            data = {k: v for k, v in data.items() if k in Report.model_fields}
            data = {k: v if isinstance(v, str) else json.dumps(v) for k, v in data.items()}
        return Report.model_validate(data), None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValidationError) as exc:
        return None, f"report_invalid: {path.name}: {str(exc).splitlines()[0][:300]}"


def remove_paths(workspace: Path, rels: tuple[str, ...]) -> None:
    """Remove the harness's files from the workspace before the diff (skill folders, report.json),
    and any parent folders they leave empty that the case did not have."""
    root = workspace.resolve()
    for rel in rels:
        p = workspace / rel
        if p.is_symlink() or p.is_file():
            p.unlink()
        elif p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        parent = p.parent
        while parent != root and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent


def finish(task: AgentTask, runner: CLIRunner, sink: EventSink, res: ExecResult,
           harness_paths: tuple[str, ...]) -> AgentOutcome:
    """Close a sample: last edits, the report, the typed status, and the harness's files removed."""
    sink.record_changes(None)
    report, problem = read_report(task.workspace)
    remove_paths(task.workspace, (REPORT_FILE, *harness_paths))
    task.tools.watcher.changes()  # the removals above are the harness's, not the agent's
    t = sink.tally
    usage = TokenUsage(input_tokens=t.input_tokens, output_tokens=t.output_tokens,
                       cost_usd=round(t.cost_usd, 6) if t.cost_usd is not None else None)
    if report is not None:
        task.transcript.append("report", report=report)
    if runner.stop_reason or res.timed_out:
        reason = runner.stop_reason or f"max_wall_seconds ({task.limits.max_wall_seconds:g}) reached"
        sink.error("limit_reached", reason)
        return AgentOutcome(status="limit_reached", report=report, error=reason, usage=usage)
    if report is None:
        tail = runner.log_text()
        detail = f" (CLI exit code {res.exit_code}; stderr tail: {tail[-500:].strip()})" if res.exit_code else ""
        sink.error(problem.split(":", 1)[0], problem + detail)
        return AgentOutcome(status="agent_error", error=problem + detail, usage=usage)
    return AgentOutcome(status="completed", report=report, usage=usage)
