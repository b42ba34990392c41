"""What the adapters for external agent CLIs (Claude Code, Codex, mini-swe-agent, ``cmd:``) share.

An external CLI is the whole agent: it talks to the model and runs its own tools. The harness
cannot step it, so it runs it once per sample, under the same sandbox as every agent command
(``harness.isolation.sandbox``: the workspace read-write, the CLI's install read-only, answers/ and the
repository absent), and follows its native log as it is written:

* the CLI's stdout goes to a log file in the sample's private /tmp; a thread reads new lines
  as they arrive and a per-tool parser turns them into transcript events;
* after every tool result the parser reports, the workspace is compared with its last state
  (``harness.workspaces.snapshot``) and each changed file becomes a ``file_edit`` event, so edits made by
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
import os
import shlex
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from harness.agents.base import AgentOutcome, AgentTask

# the relay and the log follower live in their own modules; the adapters get them from here
from harness.agents.cli_log import EventSink, LogFollower, LogParser, Tally, count, dollars  # noqa: F401
from harness.agents.relay import INSIDE_FORWARDER, MAX_RELAY_CONNECTIONS, Endpoint, HostRelay  # noqa: F401
from harness.core.errors import ConfigError
from harness.isolation.execution import ExecResult
from harness.isolation.sandbox import Mount, scratch_for
from harness.models import Report, TokenUsage
from harness.workspaces.snapshot import tree_bytes

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
    from harness.core.prompts import SKILL_BLOCK

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
                  f'while kill -0 "$pid" 2>/dev/null; do if [ -e {ctl}/stop ]; then kill -KILL "$pid"; fi; '
                  'sleep 0.2; done',
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
