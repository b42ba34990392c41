"""The Inspect AI solver: our task prompt, then one plain tool loop (bash, edit_file, submit_report), as our
built-in agent runs it; every file a tool call changed is recorded in the store (``FILE_EDITS``) like our watcher does.

Needs the optional extra ``[inspect]``.
"""

from __future__ import annotations

import difflib

from inspect_ai.model import ChatMessageSystem, ChatMessageUser, execute_tools, get_model
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.tool import ToolError, bash, tool
from inspect_ai.util import sandbox, store

from harness.core.prompts import render_system, render_task
from harness.engines.inspect_transcript import FILE_EDITS, REPORT_TOOL

LISTING = ("find . -type f ! -path './.git/*' ! -name '*.pyc' ! -path '*/__pycache__/*' -size -1000k "
           "-exec sha256sum {} +")
NUDGE = "Use the tools: run commands with bash, edit files with edit_file, and call submit_report when you are done."


@tool
def edit_file():
    async def execute(path: str, old: str, new: str) -> str:
        """Replace the one occurrence of `old` in a file of the repository with `new` (an empty `old` writes a new file).

        Args:
            path: the file, relative to the repository
            old: the exact text to replace; it must occur exactly once
            new: the text to put in its place
        """  # noqa: E501
        box = sandbox()
        if not old:
            await box.write_file(path, new)
            return f"wrote {path}"
        try:
            text = await box.read_file(path)
        except (FileNotFoundError, UnicodeDecodeError, IsADirectoryError) as exc:
            raise ToolError(f"cannot read {path}: {exc}") from exc
        count = text.count(old)
        if count != 1:
            raise ToolError(f"`old` occurs {count} times in {path}; it must occur exactly once")
        await box.write_file(path, text.replace(old, new, 1))
        return f"edited {path}"
    return execute


@tool
def submit_report():
    async def execute(root_cause: str, location: str, fix: str, evidence: str) -> str:
        """Submit the final report; the task ends with it.

        Args:
            root_cause: what is wrong and why it produces the symptom
            location: where the bug is, as file:line (or file:start-end; several separated by ';')
            fix: what you changed
            evidence: what you observed that supports your diagnosis
        """
        return "report received"
    return execute


async def _listing() -> dict[str, str]:
    result = await sandbox().exec(["sh", "-c", LISTING], timeout=120)
    out = {}
    for line in result.stdout.splitlines():
        digest, _, path = line.partition("  ")
        if path:
            out[path.removeprefix("./")] = digest
    return out


async def _text(path: str) -> str | None:
    try:
        return await sandbox().read_file(path)
    except (FileNotFoundError, UnicodeDecodeError, IsADirectoryError, PermissionError):
        return None


class _Watcher:
    """The sandbox's files before and after each tool round; the difference is recorded as file edits."""

    def __init__(self):
        self.digests: dict[str, str] = {}
        self.texts: dict[str, str | None] = {}

    async def start(self) -> None:
        self.digests = await _listing()
        self.texts = {p: await _text(p) for p in self.digests}

    async def record(self, call_id: str) -> None:
        now = await _listing()
        edits = store().get(FILE_EDITS, [])
        for path in sorted(set(now) | set(self.digests)):
            if now.get(path) == self.digests.get(path):
                continue
            before = self.texts.get(path)
            after = await _text(path) if path in now else ""
            if before is None and path in self.digests or after is None:
                diff = f"Binary file {path} changed\n"
            else:
                diff = "".join(difflib.unified_diff((before or "").splitlines(True), after.splitlines(True),
                                                    f"a/{path}", f"b/{path}"))
            edits.append({"call_id": call_id, "path": path, "diff": diff})
            self.texts[path] = after
        store().set(FILE_EDITS, edits)
        self.digests = now


@solver
def debug_agent(skill: str | None = None, max_turns: int = 50, command_timeout: int = 300):
    """Our task prompt with the sandbox's real working folder, then the tool loop until submit_report."""
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        cwd = (await sandbox().exec(["pwd"])).stdout.strip() or "."
        readme = state.metadata.get("readme", "")
        state.messages = [ChatMessageSystem(content=render_system(skill)),
                          ChatMessageUser(content=render_task(readme, cwd, state.metadata.get("entry_points", [])))]
        state.tools = [bash(timeout=command_timeout), edit_file(), submit_report()]
        watcher = _Watcher()
        await watcher.start()
        model = get_model()
        for _ in range(max_turns):
            state.output = await model.generate(state.messages, state.tools)
            state.messages.append(state.output.message)
            calls = state.output.message.tool_calls or []
            if not calls:
                state.messages.append(ChatMessageUser(content=NUDGE))
                continue
            result = await execute_tools(state.messages, state.tools)
            state.messages.extend(getattr(result, "messages", result))
            await watcher.record(calls[-1].id)
            if any(c.function == REPORT_TOOL for c in calls):
                state.completed = True
                break
        return state
    return solve


def skill_text(path: str | None) -> str | None:
    """The skill's text for the ``skill`` task argument (a markdown file or a folder with SKILL.md)."""
    if not path:
        return None
    from pathlib import Path

    from harness.core.skill import load_skill

    return load_skill(Path(path))[0]
