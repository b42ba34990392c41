"""The Inspect AI task's scorers: our graders on the sample's final files and transcript.

``code_criteria``: fix_verified (our hidden verifier, on this machine, on a copy of the sandbox's files),
location_match, fallback_added, tampering and answer_leak, exactly as a run grades them. ``llm_criteria``:
root_cause, discriminating_test, localization and unsupported_change by our judge asking the ``grader``
model role; with no grader bound they are unscored, never judged by the model under test. Each scorer's
value is ``{criterion: 1.0 pass | 0.0 fail | NaN not_applicable or unscored}`` (Inspect's reducers take numbers);
``pass_rate`` counts only pass and fail. Each verdict, with its status and reason, is in the score's metadata.
"""

from __future__ import annotations

import asyncio
import base64
import io
import math
import tarfile
import tempfile
from pathlib import Path

from inspect_ai.model import get_model, model_roles
from inspect_ai.scorer import Metric, SampleScore, Score, Target, metric, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import OutputLimitExceededError, sandbox, store

from harness.core.cases import Case, find_root, load_case
from harness.core.criteria import CRITERIA_LLM
from harness.core.hashing import sha256_file
from harness.core.transcript import TranscriptWriter, harness_secrets
from harness.engines.inspect_judge import InspectJudge
from harness.engines.inspect_transcript import FILE_EDITS, append_messages, report_of
from harness.isolation.sandbox import get_sandbox
from harness.models import Verdict
from harness.workspaces.verification import verify_for_grading
from harness.workspaces.workspace import diff_trees
from judges.grading import grade_deterministic
from judges.key import judge_key

GRADER_ROLE = "grader"
VALUE = {"pass": 1.0, "fail": 0.0}
PACK = "tar -cf - --exclude=./.git . | base64 -w0"


@metric
def pass_rate() -> Metric:
    """Passes over pass + fail; not_applicable and unscored never count (0 when nothing was scored)."""
    def compute(scores: list[SampleScore]) -> float:
        values = [getattr(s, "score", s).value for s in scores]
        scored = [float(v) for v in values if isinstance(v, (int, float)) and not math.isnan(v)]
        return sum(scored) / len(scored) if scored else float("nan")
    return compute


def _case(state: TaskState) -> tuple[Path, Case]:
    root = find_root()
    return root, load_case(root, state.metadata["case_id"])


def transcript_events(state: TaskState, path: Path) -> list:
    with TranscriptWriter(path, secrets=harness_secrets()) as tr:
        append_messages(state.messages, store().get(FILE_EDITS, []), tr)
        report = report_of(state.messages)
        if report is not None:
            tr.append("report", report=report)
        return list(tr.events)


async def pull_files(dest: Path) -> Path:
    """The sandbox's working folder, copied to ``dest`` (links stay links; nothing lands outside ``dest``)."""
    packed = await sandbox().exec(["sh", "-c", PACK], timeout=300)
    if not packed.success:
        raise RuntimeError(f"could not pack the sandbox's files: {packed.stderr[:300]}")
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(base64.b64decode(packed.stdout)), mode="r:") as tar:
        tar.extractall(dest, filter="data")
    return dest


def _score(verdicts: dict[str, Verdict], answer: str | None, **extra) -> Score:
    return Score(value={c: VALUE.get(v.status, math.nan) for c, v in verdicts.items()}, answer=answer,
                 explanation="; ".join(f"{c}: {v.status}" + (f" ({v.reason})" if v.reason else "")
                                       for c, v in verdicts.items()),
                 metadata={"verdicts": {c: v.model_dump(mode="json") for c, v in verdicts.items()}, **extra})


@scorer(metrics={"*": [pass_rate()]})
def code_criteria(verify: bool = True, sandbox_mode: str = "auto"):
    """The deterministic criteria, graded by our code on this machine."""
    async def score(state: TaskState, target: Target) -> Score:
        root, case = _case(state)
        report = report_of(state.messages)
        with tempfile.TemporaryDirectory(prefix="mldb-inspect-") as tmp:
            events = transcript_events(state, Path(tmp) / "transcript.jsonl")
            try:
                ws = await pull_files(Path(tmp) / "workspace")
                diff = diff_trees(case.case_dir, ws)
            except (OutputLimitExceededError, RuntimeError, tarfile.TarError, ValueError) as exc:
                ws = Path(tmp) / "unreadable"
                ws.mkdir()
                diff = f"[... the final workspace could not be read: {type(exc).__name__}: {exc} ...]\n"
            box = get_sandbox(sandbox_mode)
            verify_fn = (lambda: verify_for_grading(case, ws, box)) if verify else None
            verdicts = await asyncio.to_thread(grade_deterministic, case, events, report, diff, ws, box, None,
                                               [root / "answers"], verify_fn)
        if not verify:
            verdicts["fix_verified"] = Verdict(criterion="fix_verified", status="unscored", grader="none",
                                               reason="not_verified: the task ran with verify=false")
        return _score(verdicts, report.root_cause if report else None, diff=diff)  # the import's diff
    return score


def grader_model():
    """The model bound to the ``grader`` role, or None: never the model under test."""
    if model_roles().get(GRADER_ROLE) is None:  # get_model(role=...) would fall back to the model under test
        return None
    return get_model(role=GRADER_ROLE)


@scorer(metrics={"*": [pass_rate()]})
def llm_criteria(repeats: int = 1):
    """The LLM criteria, by our judge asking the ``grader`` role's model."""
    async def score(state: TaskState, target: Target) -> Score:
        _, case = _case(state)
        grader = grader_model()
        with tempfile.TemporaryDirectory(prefix="mldb-inspect-") as tmp:
            path = Path(tmp) / "transcript.jsonl"
            events = transcript_events(state, path)
            if grader is None:
                verdicts = {c: Verdict(criterion=c, status="unscored", grader="none",
                                       reason="not_judged: no grader model (--model-role grader=PROVIDER/MODEL)")
                            for c in CRITERIA_LLM}
            else:
                judge = InspectJudge(spec=f"inspect:{GRADER_ROLE}/{grader}", repeats=repeats, grader=grader,
                                     loop=asyncio.get_running_loop())
                verdicts = await asyncio.to_thread(judge.judge, events, judge_key(case.key), sha256_file(path))
        report = report_of(state.messages)
        return _score(verdicts, report.root_cause if report else None)
    return score
