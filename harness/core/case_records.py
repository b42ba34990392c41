"""The records of a case and its answer: the manifest, the key and its parts, the mutation corpus, the
symptoms, the reference plan, the report an agent submits and a verifier's run."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from harness.core.record import Record


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
                                             "it must hit >= 5 lines of the case's .py files, one inside a key "
                                             "location")
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
