"""Every record the harness reads or writes, as pydantic models, gathered from ``harness.core``, where they are
split by kind: ``record`` (the base), ``case_records`` (case and key), ``events`` (the transcript), ``verdicts``
and ``run_records`` (samples and runs). The criteria come from ``harness.core.criteria``. Like ``harness.core``,
this module imports nothing of the project above it: all other parts import it."""

from harness.core.case_records import (  # noqa: F401
    ACCEPT_KINDS,
    RECOGNISES,
    REJECT_KINDS,
    AnswerKey,
    CaseManifest,
    CopyReport,
    CorpusFix,
    FixCorpus,
    Hardness,
    LegitimateGuard,
    Location,
    MarginNote,
    OverFix,
    ProcessRun,
    ReferencePlan,
    ReferenceStep,
    Report,
    SkippedEntry,
    SymptomRun,
    Symptoms,
    VerifierRun,
)
from harness.core.criteria import CRITERIA_DETERMINISTIC, CRITERIA_LLM  # noqa: F401
from harness.core.events import (  # noqa: F401
    ErrorEvent,
    Event,
    EventBase,
    EventLine,
    FileEditEvent,
    MessageEvent,
    ModelCallEvent,
    ReportEvent,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
)
from harness.core.record import Record, scrub_surrogates  # noqa: F401
from harness.core.run_records import (  # noqa: F401
    CpuKernel,
    ResumeRecord,
    RunManifest,
    RunOptions,
    RunState,
    SampleResult,
    SampleStatus,
    SessionState,
    TokenUsage,
)
from harness.core.verdicts import (  # noqa: F401
    Evidence,
    Verdict,
    VerdictStatus,
)
