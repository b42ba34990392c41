"""Every record the harness reads or writes, as pydantic models.

This module imports nothing else from the project but the criteria registry (``harness.criteria``, which
imports nothing): all other parts import it.
Unknown fields are errors everywhere (``extra="forbid"``) so a typo in a case
manifest or answer key fails loudly instead of being silently ignored.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from harness.criteria import CRITERIA_DETERMINISTIC, CRITERIA_LLM  # noqa: F401 (the records' criteria, re-exported)


def scrub_surrogates(value: Any) -> Any:
    """Replace lone UTF-16 surrogates (``"\\ud800"`` in a JSON string decodes to one) by ``?``.

    The agent controls text that reaches records (its report, its measurements echoed by a verifier,
    CLI log lines), and a str holding a lone surrogate cannot be encoded as UTF-8: writing the record
    would raise in the middle of a run. Scrubbing on the way in keeps every record writable."""
    if isinstance(value, str):
        if value.isascii():
            return value
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {scrub_surrogates(k): scrub_surrogates(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(scrub_surrogates(v) for v in value)
    return value


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _writable_text(cls, data: Any) -> Any:
        return scrub_surrogates(data) if isinstance(data, dict) else data


# --- cases and answers -------------------------------------------------------


class CaseManifest(Record):
    """``cases/case_NN/case.toml``: how to run the case. The agent sees it, so no hints."""

    id: str
    run: str = Field(description="shell command, run in the workspace, that shows the symptom")
    timeout_seconds: float = Field(default=60.0, gt=0)
    entry_points: list[str] = Field(
        default_factory=list,
        description="module.name the task prompt asks the agent to keep (names and signatures): the hidden "
                    "verifier calls them, so renaming one is a failed check the agent was warned about")


class Location(Record):
    """Where the bug lives: a file and an inclusive 1-based line span."""

    file: str = Field(description="path relative to the case folder; must exist")
    start_line: int = Field(ge=1, description="first line of the span (1-based)")
    end_line: int = Field(ge=1, description="last line of the span, inclusive; at most 30 lines after start_line "
                                            "and within the file")
    symbol: str | None = Field(default=None, description="the enclosing function or class, for people")

    @field_validator("end_line")
    @classmethod
    def _span_ordered(cls, end: int, info) -> int:
        start = info.data.get("start_line")
        if start is not None and end < start:
            raise ValueError(f"end_line {end} is before start_line {start}")
        return end


class OverFix(Record):
    """A naive patch that hides the symptom without fixing the cause; the verifier must reject it."""

    name: str = Field(description="unique among over_fixes; the check is over_fix_rejected:<name>")
    patch: str = Field(description="path of the patch, relative to the answer folder")
    description: str = Field(description="what it changes and why it only hides the symptom")


class MarginNote(Record):
    """Why a check that ``validate --margins`` flags (a value within 10% of its bound) is not a verdict that can
    flip on another seed or CPU kernel, with the spread measured across seeds and kernels."""

    check: str = Field(description="the check's name as the verdict rows give it (e.g. train_nll_below_bug_floor)")
    why: str = Field(min_length=40, description="what the flagged value is, the spread measured across seeds and "
                                                "kernels, and what keeps the verdict from flipping")


class LegitimateGuard(Record):
    """A construct ``fallback_added`` would flag that is part of the case's legitimate fix (see judges/fallback.py)."""

    file: str = Field(description="the case file (relative to the case folder) the construct is in")
    symbol: str | None = Field(default=None, description="the enclosing function (None: anywhere in the file)")
    kind: Literal["nonfinite_guard", "nan_replace", "eps_floor", "value_clamp", "masked_division",
                  "exception_swallow", "skip_step", "optimizer_swap", "loss_swap"] = Field(
        description="the fallback_added construct allowed there")
    why: str = Field(description="why this construct fixes the cause here instead of hiding it")


class Hardness(Record):
    """``[hardness]`` of a hard case's key (required there): what ``validate`` measures to show the case is hard."""

    # spelled ``construct`` in key.toml; the attribute name avoids pydantic's deprecated BaseModel.construct
    construct_regex: str = Field(alias="construct",
                                 description="Python regex a reviewer would grep for to find the bug's construct; "
                                             "it must hit >= 5 lines of the case's .py files, one inside a key location")
    anomaly_over_fix: str = Field(description="name of the over_fixes entry that 'fixes' the harmless anomaly")
    seed_command: str | None = Field(
        default=None, description="the run command with '{seed}' where a seed goes (e.g. 'python train.py --set "
                                  "seed={seed}'): validate times it on 3 seeds; without it the run command is timed")

    @field_validator("construct_regex")
    @classmethod
    def _valid_regex(cls, value: str) -> str:
        import re

        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a valid Python regex: {exc}") from None
        return value


class AnswerKey(Record):
    """``answers/case_NN/key.toml``: the hidden answer, in the project's own words."""

    case_id: str = Field(description="the case's id: the folder name and case.toml's id")
    canary: str = Field(min_length=16, description="a unique string (MLDB-CANARY-...) kept only here and in the "
                                                   "verifier files; in a transcript it fails answer_leak")
    root_cause: str = Field(description="the cause, in the project's own words (the judge's reference)")
    discriminating_test: str = Field(description="the experiment that tells the cause from its competitors")
    requires_localization: bool = Field(description="whether the localization criterion applies (n/a when false)")
    paraphrases: list[str] = Field(min_length=1, description="diagnoses the judge must accept")
    near_misses: list[str] = Field(min_length=1, description="diagnoses that sound close but must FAIL")
    competitors: list[str] = Field(min_length=1, description="hypotheses the discriminating test must separate")
    instrumentation: str = Field(
        default="Adding prints, logging, asserts or a separate probe script does not change behaviour; "
        "editing the training code, model, data pipeline or config does.",
        description="grading note: which edits count as instrumentation",
    )
    locations: list[Location] = Field(min_length=1, description="where the bug is (at most 3 spans; a reported "
                                                                "file:line must overlap one)")
    leak_terms: list[str] = Field(default_factory=list, description="phrases that must never appear in the case folder")
    oracle_symbols: list[str] = Field(
        default_factory=list,
        description="names in the case a fix must not use, because they hand over the answer the training should "
                    "reach (e.g. an analytic solution); tampering flags added code that refers to them")
    gold_patch: str = Field(default="gold.patch", description="the gold fix, a unified diff applied in the case "
                                                              "folder (relative to the answer folder)")
    measure: str = Field(default="measure.py", description="the measuring half of the verifier (runs the agent's code)")
    decide: str = Field(default="decide.py", description="the deciding half (never imports the agent's code)")
    verifier_files: list[str] = Field(default_factory=list, description="other answer files both halves may read")
    verifier_timeout_seconds: float = Field(default=300.0, gt=0, description="the measuring process's time budget")
    over_fixes: list[OverFix] = Field(default_factory=list, description="naive fixes that hide the symptom; the "
                                                                        "verifier must reject each")
    legitimate_guards: list[LegitimateGuard] = Field(
        default_factory=list, description="constructs of the legitimate fix that fallback_added must not count")
    margin_notes: list[MarginNote] = Field(default_factory=list, description="one per check `validate --margins` "
                                                                             "flags and that is kept as it is")
    hardness: Hardness | None = Field(default=None, description="required for hard and frontier cases (hard_case_NN, "
                                                                   "frontier_case_NN)")


ACCEPT_KINDS = ("different_form", "different_layer", "refactor", "other")
REJECT_KINDS = ("masked_symptom", "partial", "decoy", "probe_only", "tuned_constant", "fallback",
                "verifier_recognising", "other")
# How a verifier-recognising wrong fix tells it is being measured (docs/cases.md, "Conventions validate enforces"):
# the measuring process runs under ``python -I``, and its script is named measure.py.
RECOGNISES = ("python_isolated", "argv0_measure")


class CorpusFix(Record):
    """One labelled candidate fix of a case's mutation corpus (``answers/case_NN/fixes/fixes.toml``)."""

    name: str = Field(pattern=r"^[a-z0-9_]+$", description="unique in the corpus; the check is corpus_<expect>:<name>")
    patch: str = Field(description="the patch file, relative to fixes/")
    expect: Literal["accept", "reject"] = Field(description="accept: a correct fix; reject: a wrong one")
    kind: str = Field(description="accept: " + " | ".join(ACCEPT_KINDS) + "; reject: " + " | ".join(REJECT_KINDS))
    recognises: Literal["python_isolated", "argv0_measure"] | None = Field(
        default=None, description="verifier_recognising fixes only: what the fix recognises, sys.flags.isolated "
                                  "(python_isolated) or 'measure' in sys.argv[0] (argv0_measure)")
    description: str = Field(description="what it changes and why it is right or wrong")
    evidence: str = Field(default="", description="what running it showed, with numbers")

    @model_validator(mode="after")
    def _kind_in_vocabulary(self) -> "CorpusFix":
        allowed = ACCEPT_KINDS if self.expect == "accept" else REJECT_KINDS
        if self.kind not in allowed:
            raise ValueError(f"kind {self.kind!r} is not one of {', '.join(allowed)} (for expect = {self.expect!r})")
        if (self.kind == "verifier_recognising") != (self.recognises is not None):
            raise ValueError("recognises is required with kind = 'verifier_recognising', and allowed only there")
        return self


class FixCorpus(Record):
    """``answers/case_NN/fixes/fixes.toml``: the mutation corpus, labelled fixes the verifier must judge right."""

    fix: list[CorpusFix] = Field(default_factory=list, description="[[fix]]: the labelled fixes")


class SymptomRun(Record):
    """A command whose output the case README quotes; ``validate`` re-runs it and compares."""

    command: str = Field(description="run on the broken repo, in a fresh copy of the case folder")
    block: int = Field(ge=1, description="1-based index of the README's fenced code block holding the output")
    abs_tol_digits: float = Field(default=2.0, gt=0,
                                  description="numbers agree within this many units of their last printed digit")
    ignore: list[str] = Field(default_factory=list, description="README lines containing any of these are not compared")


class Symptoms(Record):
    """``answers/case_NN/symptoms.toml``: every output block of the case README, tied to its command."""

    run: list[SymptomRun] = Field(min_length=1, description="[[run]]: one entry per README output block")


class ReferenceStep(Record):
    """One command of the reference investigation, run for real in the workspace."""

    command: str = Field(description="a shell command run in the workspace (no answers/ path, no canary)")
    thought: str = Field(description="what the investigator expects this command to tell apart")


class Report(Record):
    """What an agent submits at the end. Kept small on purpose (see docs/design.md)."""

    root_cause: str = Field(description="the diagnosis")
    location: str = Field(default="", description="file:line or file:start-end; several separated by ';'")
    fix: str = Field(default="", description="the fix applied")
    evidence: str = Field(default="", description="what the experiments showed")


class ReferencePlan(Record):
    """``answers/case_NN/reference.toml``: what the oracle agent does."""

    steps: list[ReferenceStep] = Field(min_length=1, description="[[steps]]: the investigation, in order")
    report: Report = Field(description="[report]: what the reference agent submits after applying gold.patch")


class SkippedEntry(Record):
    """Something in an agent's workspace a copy or diff left out, and why (never followed, never read)."""

    path: str
    kind: str
    reason: str


class CopyReport(Record):
    bytes_copied: int = 0
    skipped: list[SkippedEntry] = Field(default_factory=list)


class ProcessRun(Record):
    """How one sandboxed process of a verification ended (its output is diagnostics, never a verdict)."""

    exit_code: int | None
    timed_out: bool
    duration_s: float
    stderr_tail: str = ""


class VerifierRun(Record):
    """The hidden verifier's outcome on one tree: ``error`` means it could not run (not the agent's fail)."""

    status: Literal["pass", "fail", "error"]
    reason: str | None = None
    result: dict[str, Any] = Field(default_factory=dict, description="the deciding process's JSON verdict")
    measure: ProcessRun | None = None
    readme_run: ProcessRun | None = Field(default=None, description="the case's own run command on the same files")
    decide: ProcessRun | None = None
    skipped: list[SkippedEntry] = Field(default_factory=list, description="left out of the copy the verifier saw")
    duration_s: float = 0.0
    early_stop: bool = Field(default=False, description="a verdict-only verification stopped at its failing first "
                                                        "seed: later seeds and the README run were not made")

    @property
    def passed(self) -> bool:
        return self.status == "pass"


# --- transcripts ---------------------------------------------------------------


class EventBase(Record):
    id: int = Field(ge=0, description="position in the transcript, 0-based, strictly increasing")
    t: float = Field(description="seconds since the sample started")


class MessageEvent(EventBase):
    kind: Literal["message"] = "message"
    role: Literal["system", "user", "assistant"]
    content: str


class ToolCallEvent(EventBase):
    kind: Literal["tool_call"] = "tool_call"
    call_id: str
    name: str
    arguments: dict[str, Any]


class ToolResultEvent(EventBase):
    kind: Literal["tool_result"] = "tool_result"
    call_id: str
    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    duration_s: float = 0.0
    timed_out: bool = False
    stdout_bytes: int = Field(default=0, description="bytes the command really wrote, before the cap")
    stderr_bytes: int = 0
    truncated: bool = Field(default=False, description="True when stdout or stderr was cut to the cap")
    error: str | None = Field(default=None, description="a tool error shown to the agent (bad arguments, ...)")


class FileEditEvent(EventBase):
    kind: Literal["file_edit"] = "file_edit"
    call_id: str | None = None
    path: str
    diff: str


class ModelCallEvent(EventBase):
    """One request/response pair with an LLM, as sent and received."""

    kind: Literal["model_call"] = "model_call"
    provider: str
    request: dict[str, Any]
    response: dict[str, Any] | None = None
    error: str | None = None
    latency_s: float = 0.0


class UsageEvent(EventBase):
    kind: Literal["usage"] = "usage"
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = Field(default=None, description="None when the model's price is unknown")


class ReportEvent(EventBase):
    kind: Literal["report"] = "report"
    report: Report


class ErrorEvent(EventBase):
    kind: Literal["error"] = "error"
    error_type: str
    message: str


Event = Annotated[
    Union[MessageEvent, ToolCallEvent, ToolResultEvent, FileEditEvent, ModelCallEvent, UsageEvent, ReportEvent, ErrorEvent],
    Field(discriminator="kind"),
]


class EventLine(Record):
    """Wrapper used to parse one JSONL line into the right event type."""

    event: Event


# --- grading -------------------------------------------------------------------

VerdictStatus = Literal["pass", "fail", "not_applicable", "unscored"]
# the criteria's names, read from their registry (harness.criteria)


class Evidence(Record):
    event_id: int
    quote: str


class Verdict(Record):
    """One criterion's grade. ``unscored`` is never counted as pass or fail, but always shown."""

    criterion: str
    status: VerdictStatus
    reason: str | None = Field(default=None, description="why unscored (not_judged, judge_error, ...) or a short why")
    evidence: list[Evidence] = Field(default_factory=list)
    reasoning: str = ""
    grader: str
    details: dict[str, Any] = Field(default_factory=dict)


# --- samples and runs ------------------------------------------------------------

SampleStatus = Literal["completed", "limit_reached", "agent_error", "infra_error"]


class TokenUsage(Record):
    input_tokens: int = 0
    output_tokens: int = 0
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
    tier: Literal["standard", "hard", "frontier", "all"] = Field(default="standard", description="the cases run when none are "
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

    status: Literal["running", "finished", "interrupted", "aborted"]
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
