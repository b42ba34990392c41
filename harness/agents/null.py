"""The floor: does nothing and says it does not know."""

from __future__ import annotations

from harness.agents.base import AgentOutcome, AgentTask
from harness.models import Report


class NullAgent:
    name = "null"
    settings: dict = {}

    def check_limits(self, limits) -> None:
        """Every budget applies as given: the runner enforces steps and wall time."""

    def run(self, task: AgentTask) -> AgentOutcome:
        report = Report(root_cause="unknown")
        task.transcript.append("report", report=report)
        return AgentOutcome(status="completed", report=report)


def create(spec: str, root, **options) -> NullAgent:
    return NullAgent()
