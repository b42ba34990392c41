"""The records of samples and runs: results, options, state, sessions, resume records and the manifest."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from harness.core.case_records import Report
from harness.core.record import Record
from harness.core.verdicts import Verdict

SampleStatus = Literal["completed", "limit_reached", "agent_error", "infra_error"]


class TokenUsage(Record):
    input_tokens: int = Field(default=0, description="every input token, the cached ones included")
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = None


class SampleResult(Record):
    """One (agent, condition, case, epoch): what happened and how it was graded."""

    sample_id: str
    agent: str
    condition: str
    case_id: str
    epoch: int = Field(ge=0)
    status: SampleStatus
    error: str | None = None
    report: Report | None = None
    transcript: str = Field(description="path of the transcript, relative to the run folder")
    transcript_sha256: str
    diff: str = Field(description="path of the final workspace diff, relative to the run folder")
    started_at: str
    duration_s: float
    usage: TokenUsage = Field(default_factory=TokenUsage)
    tool_errors: int = Field(default=0, ge=0, description="malformed or failed tool calls the agent was shown")
    cpu_wait_s: float = Field(default=0.0, ge=0, description="time spent waiting for a CPU slot; not charged "
                                                             "to the sample's wall-clock budget")
    verdicts: dict[str, Verdict] = Field(default_factory=dict)


class RunOptions(Record):
    """Every setting ``run`` was given, as given: ``resume`` rebuilds the run from these alone."""

    agent: str
    cases: list[str] = Field(default_factory=list, description="empty: all cases of the tier")
    tier: Literal["standard", "hard", "frontier", "all"] = Field(default="standard",
                                                                 description="the cases run when none are "
                                                                 "named (runs from before tiers: standard)")
    epochs: int = Field(default=1, ge=1)
    conditions: list[str] = Field(default_factory=lambda: ["control"])
    skill: str | None = Field(default=None, description="the --skill path (file or folder), absolute")
    sandbox: str = "auto"
    max_steps: int = Field(default=50, ge=1)
    command_timeout: float = Field(default=300.0, gt=0)
    max_wall: float = Field(default=1800.0, gt=0)
    max_tokens: int | None = Field(default=None, ge=1)
    max_cost: float | None = Field(default=None, gt=0)
    base_url: str | None = None
    temperature: float | None = None
    max_tokens_per_call: int | None = Field(default=None, ge=1)
    reasoning_effort: str | None = None
    max_retries: int = Field(default=4, ge=0)
    prices: str | None = None
    budget_usd: float | None = Field(default=None, gt=0, description="no new sample once this is spent")
    estimate_from: str | None = Field(default=None, description="a run whose cost per sample estimates this one's")
    over_budget: bool = Field(default=False, description="start although the estimate is over the budget")
    judge: str | None = None
    judge_repeats: int = Field(default=1, ge=1)
    judge_base_url: str | None = None
    judge_max_input_tokens: int = Field(default=12000, ge=1000)
    max_parallel: int = Field(default=1, ge=1, description="samples at once")
    cpu_slots: int = Field(default=1, ge=1, description="CPU-heavy commands at once (agent commands, case runs, "
                                                        "verifiers)")
    order: Literal["random", "fixed"] = "random"
    order_seed: int = Field(default=0, description="seed of the random job order (recorded even when fixed)")
    max_error_rate: float = Field(default=0.0, ge=0, le=1)


class RunState(Record):
    """``results/<run_id>/state.json``: whether the run is going, and where its workspaces live, so a
    ``resume`` after a crash can refuse a run that is still alive and remove what a dead one left."""

    status: Literal["running", "finished", "interrupted", "aborted", "budget_reached"]
    pid: int
    scratch_dir: str | None = None
    interrupted: list[str] = Field(default_factory=list, description="samples stopped mid-way, redone by resume")
    peak_cpu_slots: int = Field(default=0, ge=0, description="the most CPU-heavy commands that ran at once")
    updated_at: str


class SessionState(Record):
    """``<sessions dir>/<id>/state.json``: one sample driven from outside, one command at a time
    (``ml-debug-bench session``). Kept outside the workspace and the run folder; the transcript's hash
    after each of the harness's writes is kept here, so an edit made to it between calls is caught."""

    session_id: str
    status: Literal["open", "ended"] = "open"
    agent: str = Field(description="session:NAME, the run's agent name")
    human: bool = Field(description="a person drove it (a human baseline), not a model")
    case_id: str
    condition: str
    epoch: int = Field(default=0, ge=0)
    run_dir: str
    project_root: str = Field(description="the checkout the private inputs were copied from")
    work_dir: str = Field(description="the session's temp folder: private inputs and the workspace")
    workspace: str
    inputs_sha256: dict[str, str]
    started_at: str
    started_epoch_s: float = Field(description="time.time() at start: the wall clock every budget counts from")
    max_wall_s: float = Field(gt=0)
    max_steps: int = Field(ge=1)
    command_timeout_s: float = Field(gt=0)
    sandbox: str
    judge: str | None = None
    judge_repeats: int = Field(default=1, ge=1)
    judge_base_url: str | None = None
    judge_max_input_tokens: int = Field(default=12000, ge=1000)
    steps: int = Field(default=0, ge=0, description="exec calls so far")
    transcript_sha256: str = ""
    ended_status: str | None = None


class ResumeRecord(Record):
    """One ``resume`` of a run: when, which samples it redid, and any input changes ``--force`` accepted."""

    at: str
    redone: list[str] = Field(default_factory=list)
    torn_lines: int = 0
    forced_mismatches: list[str] = Field(default_factory=list)


class CpuKernel(Record):
    """The kernel a run or verification used, for the manifest and ``verify``'s output."""

    level: str = Field(description="the level commands ran under: the forced one, else the native one")
    native: str = Field(description="what torch picks on this CPU when nothing forces a level")
    aten_cpu_capability: str | None = Field(default=None, description="ATEN_CPU_CAPABILITY as set, if it was")
    supported: list[str] = Field(description="levels this CPU can run, lowest first")
    flags: list[str] = Field(description="the CPU flags that decide the levels, as present")
    machine: str


class RunManifest(Record):
    """``results/<run_id>/manifest.json``: everything needed to trust, resume or compare a run."""

    run_id: str
    created_at: str
    harness_version: str
    agent: str
    agent_settings: dict[str, Any] = Field(default_factory=dict)
    conditions: list[str]
    case_ids: list[str]
    epochs: int = Field(ge=1)
    case_sha256: dict[str, str]
    answer_sha256: dict[str, str]
    inputs_sha256: dict[str, str] = Field(default_factory=dict,
                                          description="whole-tree hashes of the run's private cases/ and answers/ "
                                                      "(verifylib.py included), re-checked before every grading")
    prompt_template_sha256: str
    skill_sha256: str | None = None
    judge: str | None = None
    judge_prompt_sha256: str | None = None
    sandbox: str
    sandbox_details: dict[str, Any] = Field(default_factory=dict)
    platform: dict[str, str] = Field(default_factory=dict)
    cpu_kernel: CpuKernel | None = Field(default=None, description="torch's SIMD kernel level the run's commands "
                                                                   "used, the native one and the CPU flags behind it")
    provenance: dict[str, Any] = Field(default_factory=dict, description="harness git commit and dirty flag, SDK "
                                                                         "versions, the agent CLI's version")
    options: RunOptions | None = Field(default=None, description="the settings resume rebuilds the run from")
    resumes: list[ResumeRecord] = Field(default_factory=list)
