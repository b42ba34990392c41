"""The oracle: runs the case's reference investigation for real, applies the gold fix, reports.

It is the only agent that reads answers/, and only to learn what to do; everything it
does goes through the same recorded tools as any other agent, so its transcript is real.
"""

from __future__ import annotations

from pathlib import Path

from harness.agents.base import AgentOutcome, AgentTask
from harness.core.cases import load_case


class ReferenceAgent:
    name = "reference"
    settings: dict = {}

    def __init__(self, root: Path):
        self.root = root

    def check_limits(self, limits) -> None:
        """Every budget applies as given: the runner enforces steps and wall time."""

    def run(self, task: AgentTask) -> AgentOutcome:
        case = load_case(self.root, task.case_id)
        for step in case.reference.steps:
            task.transcript.append("message", role="assistant", content=step.thought)
            task.tools.bash(step.command)
        task.transcript.append("message", role="assistant", content="Applying the fix to the code I localized.")
        result = task.tools.apply_patch(case.gold_patch_path.read_text(encoding="utf-8"))
        if result.error:
            return AgentOutcome(status="agent_error", error=f"gold patch failed: {result.error}")
        task.transcript.append("message", role="assistant", content="Re-running the original command to confirm.")
        task.tools.bash(case.manifest.run)
        task.transcript.append("report", report=case.reference.report)
        return AgentOutcome(status="completed", report=case.reference.report)


def create(spec: str, root: Path, **options) -> ReferenceAgent:
    return ReferenceAgent(root)
