"""The floor: does nothing and says it does not know."""

from __future__ import annotations

from harness.agents.base import AgentOutcome, AgentTask
from harness.models import Report


class NullAgent:
    name = "null"
    settings: dict = {}

    def run(self, task: AgentTask) -> AgentOutcome:
        report = Report(root_cause="unknown")
        task.transcript.append("report", report=report)
        return AgentOutcome(status="completed", report=report)
