"""A run's settings (``RunConfig``), its arms, and the samples it plans (agent x condition x case x epoch)."""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from harness.agents.base import Agent, Limits
from harness.core.cases import Case
from harness.models import RunOptions
from harness.workspaces.private_inputs import PrivateInputs

CONTROL = "control"
SKILL = "skill"


@dataclass
class RunConfig:
    agent: Agent
    cases: list[Case]
    out_root: Path
    epochs: int = 1
    conditions: tuple[str, ...] = (CONTROL,)
    skill_text: str | None = None
    skill_sha256: str | None = None
    # the --skill path as given (a SKILL.md file or its folder): CLI agents install it the way their tool loads skills
    skill_path: Path | None = None
    limits: Limits = Limits()
    sandbox: object = None
    run_id: str | None = None
    # Optional LLM judge, called as judge(case, events, transcript_path) -> {criterion: Verdict}
    # after deterministic grading; it must expose .spec and .prompt_sha256 for the manifest.
    judge: Callable | None = None
    # The run's private read-only copies of cases/ and answers/ (None in validate's one-off samples)
    inputs: PrivateInputs | None = None
    # Where workspaces are made (one temp folder per run); None = the system temp folder
    work_dir: Path | None = None
    # the settings as given on the command line, recorded so that resume can rebuild the run
    options: RunOptions | None = None
    max_parallel: int = 1
    cpu_slots: int = 1
    order: str = "fixed"  # fixed: epoch, case, condition; random: shuffled with order_seed, arms interleaved
    order_seed: int = 0
    # --budget-usd: no new sample starts once it is spent (harness.running.budget)
    budget: object = None


@dataclass(frozen=True)
class Job:
    case: Case
    condition: str
    epoch: int

    @property
    def name(self) -> str:
        return sample_name(self.case.id, self.condition, self.epoch)

    @property
    def label(self) -> str:
        return f"{self.case.id} {self.condition} e{self.epoch}"


def plan_jobs(cfg: RunConfig) -> list[Job]:
    """Every sample of the run, in the order they start.

    ``random`` shuffles the (case, epoch) pairs with the recorded seed and puts a pair's arms next
    to each other in a random order, so drift in a provider over a run hits both arms alike."""
    pairs = [(case, epoch) for epoch in range(cfg.epochs) for case in cfg.cases]
    if cfg.order == "fixed":
        return [Job(case, cond, epoch) for case, epoch in pairs for cond in cfg.conditions]
    rng = random.Random(cfg.order_seed)
    rng.shuffle(pairs)
    jobs = []
    for case, epoch in pairs:
        conds = list(cfg.conditions)
        rng.shuffle(conds)
        jobs.extend(Job(case, cond, epoch) for cond in conds)
    return jobs


def new_run_id(agent_name: str) -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in agent_name)
    return f"{stamp}-{safe}-{secrets.token_hex(2)}"


def sample_name(case_id: str, condition: str, epoch: int) -> str:
    return f"{case_id}__{condition}__e{epoch}"
