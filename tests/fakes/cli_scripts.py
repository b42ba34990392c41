"""Scripted models that debug case_01 through a real agent CLI's own tools.

Each script reads the code, runs ``python train.py``, tries to read the answer key (which must
fail from inside the sandbox), fixes the bug with the CLI's edit tool, writes ``report.json`` and
ends with a text answer. Turns are functions of the request so they can use the workspace path
the prompt names and, in the skill arm, check that the CLI listed the skill before reading it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.fakes.streaming_server import Text, ToolUse

REPORT = {"root_cause": "Classifier.forward returns softmax probabilities and CrossEntropyLoss applies "
                        "log_softmax again, so the loss is flat near ln(10) and gradients vanish.",
          "location": "model.py:19", "fix": "return the raw logits from forward",
          "evidence": "train.py: loss stays at 2.30 and entropy at its maximum for 500 steps"}
FINAL = "Fixed: model.py returned softmax probabilities into CrossEntropyLoss; it now returns logits."
_WS = re.compile(r"The repository is at: (/[A-Za-z0-9_./-]+?)(?:\\n|\n|\s)")


def workspace_of(body: dict) -> str:
    m = _WS.search(json.dumps(body))
    if not m:
        raise AssertionError("the prompt does not name the workspace")
    return m.group(1)


def snoop_command(root: Path) -> str:
    """A look at the checkout from inside: under bubblewrap only the Python install in it exists
    (no cases/, answers/, harness/). Naming answers/ itself would fail ``answer_leak`` by design."""
    return f"ls -a {root}; echo ---; ls -a {root.parent}"


class Session:
    """Remembers the workspace across turns (the first request names it)."""

    def __init__(self):
        self.ws = ""

    def see(self, body: dict) -> str:
        if not self.ws:
            self.ws = workspace_of(body)
        return self.ws


def claude_code_script(root: Path, skill_name: str | None = None) -> list:
    s = Session()

    def turn(fn):
        return lambda body: fn(s.see(body), body)

    turns = []
    if skill_name:
        def read_skill(ws, body):
            if skill_name not in json.dumps(body):
                return [Text(f"the skill {skill_name} was not listed to me")]
            return [Text("A skill applies; reading it."),
                    ToolUse("Read", {"file_path": f"{ws}/.claude/skills/{skill_name}/SKILL.md"})]
        turns.append(turn(read_skill))
    turns += [
        turn(lambda ws, b: [Text("Reading the code first."), ToolUse("Read", {"file_path": f"{ws}/model.py"})]),
        turn(lambda ws, b: [ToolUse("Bash", {"command": "python train.py", "description": "reproduce"})]),
        turn(lambda ws, b: [ToolUse("Bash", {"command": snoop_command(root), "description": "look around"})]),
        turn(lambda ws, b: [Text("forward() applies softmax before CrossEntropyLoss."),
                            ToolUse("Edit", {"file_path": f"{ws}/model.py",
                                             "old_string": "return logits.softmax(dim=-1)",
                                             "new_string": "return logits"})]),
        turn(lambda ws, b: [ToolUse("Write", {"file_path": f"{ws}/report.json", "content": json.dumps(REPORT)})]),
        turn(lambda ws, b: [Text(FINAL)]),
    ]
    return turns


def codex_script(root: Path, skill_name: str | None = None) -> list:
    s = Session()

    def turn(fn):
        return lambda body: fn(s.see(body), body)

    def sh(cmd: str) -> ToolUse:
        return ToolUse("exec_command", {"cmd": cmd, "tty": False})

    turns = []
    if skill_name:
        def read_skill(ws, body):
            text = json.dumps(body)  # Codex lists "- NAME: description (file: rN/NAME/SKILL.md)" and "`rN` = `/root`"
            roots = dict(re.findall(r"`(r\d+)` = `([^`]+)`", text))
            m = re.search(r"\(file: (r\d+)/" + re.escape(skill_name) + r"/SKILL\.md\)", text)
            if not m or m.group(1) not in roots:
                return [Text(f"the skill {skill_name} was not listed to me")]
            return [Text("A skill applies; reading it."), sh(f"cat {roots[m.group(1)]}/{skill_name}/SKILL.md")]
        turns.append(turn(read_skill))
    report = json.dumps(REPORT).replace("'", "")
    turns += [
        turn(lambda ws, b: [Text("Reading the code first."), sh("cat model.py")]),
        turn(lambda ws, b: [sh("python train.py")]),
        turn(lambda ws, b: [sh(snoop_command(root))]),
        turn(lambda ws, b: [Text("forward() applies softmax before CrossEntropyLoss."),
                            sh("sed -i 's/return logits.softmax(dim=-1)/return logits/' model.py")]),
        turn(lambda ws, b: [sh(f"printf '%s' '{report}' > report.json")]),
        turn(lambda ws, b: [Text(FINAL)]),
    ]
    return turns


def mini_swe_script(root: Path) -> list:
    """mini-swe-agent's one ``bash`` tool; it ends when a command echoes its submit word."""

    def sh(cmd: str) -> ToolUse:
        return ToolUse("bash", {"command": cmd})

    report = json.dumps(REPORT).replace("'", "")
    return [
        [Text("Reading the code first."), sh("cat model.py")],
        [Text("Reproducing."), sh("python train.py")],
        [Text("Looking around."), sh(snoop_command(root))],
        [Text("forward() applies softmax before CrossEntropyLoss."),
         sh("sed -i 's/return logits.softmax(dim=-1)/return logits/' model.py")],
        [Text("Writing the report."), sh(f"printf '%s' '{report}' > report.json")],
        [Text(FINAL), sh("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")],
    ]
