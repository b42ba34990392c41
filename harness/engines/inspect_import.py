"""``ml-debug-bench import inspect LOG``: an Inspect AI log of the ``ml_debug_bench`` task as a run folder.

Each sample (case x epoch) becomes one sample of ours, written with the runner's writers: the messages (and
the file edits our solver recorded) become the transcript, the verdicts our scorers put in each score's
metadata are kept as they were graded, and the diff they computed is the sample's diff. A sample Inspect
ended with an error is ``infra_error`` (all unscored); one stopped by a limit is ``limit_reached``. A sample
that cannot be read is named and left out. Needs the optional extra ``[inspect]`` (``read_eval_log``).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from harness.agents.base import AgentOutcome
from harness.agents.llm import usage_from_events
from harness.core.cases import list_case_ids, load_case
from harness.core.errors import ConfigError, InputError
from harness.core.results import append_sample, write_state
from harness.core.transcript import TranscriptWriter, harness_secrets
from harness.engines.imported import ImportResult, start_run
from harness.engines.inspect_transcript import FILE_EDITS, append_messages, report_of
from harness.models import SampleResult, TokenUsage, Verdict
from harness.running.config import CONTROL, sample_name
from harness.running.sample import _all_unscored, sample_record
from judges.grading import not_judged

TASK = "ml_debug_bench"
SCORERS = ("code_criteria", "llm_criteria")


def read_log(path: Path):
    try:
        from inspect_ai.log import read_eval_log
    except ImportError as exc:
        raise ConfigError("import inspect needs the [inspect] extra: pip install 'ml-debug-bench[inspect]'") from exc
    if not Path(path).is_file():
        raise InputError(path, "no such Inspect log file")
    try:
        log = read_eval_log(str(path))
    except Exception as exc:  # noqa: BLE001 - any unreadable log: say which file and why
        raise InputError(path, f"not a readable Inspect log: {type(exc).__name__}: {str(exc)[:300]}") from exc
    if log.eval.task.rsplit("/", 1)[-1] != TASK:
        raise InputError(path, f"{log.eval.task!r} is not the {TASK} task", field="eval.task")
    return log


def _verdicts(sample, where: Path) -> dict[str, Verdict]:
    out: dict[str, Verdict] = {}
    for name in SCORERS:
        score = (sample.scores or {}).get(name)
        recorded = ((score.metadata or {}).get("verdicts") if score is not None else None) or {}
        for criterion, data in recorded.items():
            try:
                out[criterion] = Verdict.model_validate(data)
            except ValidationError as exc:
                raise InputError(where, f"sample {sample.id} epoch {sample.epoch}: {str(exc).splitlines()[0]}",
                                 field=f"scores.{name}.metadata.verdicts.{criterion}") from exc
    return out


def _usage(sample, model: str, events) -> TokenUsage:
    used = (sample.model_usage or {}).get(model)
    if used is not None:
        return TokenUsage(input_tokens=used.input_tokens or 0, output_tokens=used.output_tokens or 0)
    return usage_from_events(events)


def import_sample(run_dir: Path, case, sample, agent: str, model: str, condition: str, epoch: int,
                  where: Path) -> SampleResult:
    recorded = _verdicts(sample, where)
    name = sample_name(case.id, condition, epoch)
    store = sample.store or {}
    with TranscriptWriter(run_dir / "transcripts" / f"{name}.jsonl", secrets=harness_secrets()) as tr:
        append_messages(sample.messages or [], store.get(FILE_EDITS, []), tr)
        report = report_of(sample.messages or [])
        if report is not None:
            tr.append("report", report=report)
        if sample.error is not None:
            why = f"Inspect sample error: {sample.error.message}"[:300]
            tr.append("error", error_type="infra_error", message=why)
            outcome = AgentOutcome(status="infra_error", report=report, error=why)
            verdicts = _all_unscored(f"infra_error: {why}"[:300])
        else:
            if sample.limit is not None:
                why = f"{sample.limit.type} limit reached ({sample.limit.limit})"
                tr.append("error", error_type="limit_reached", message=why)
                outcome = AgentOutcome(status="limit_reached", report=report, error=why)
            elif report is None:
                outcome = AgentOutcome(status="agent_error", error="report_missing: no submit_report call")
                tr.append("error", error_type="agent_error", message=outcome.error)
            else:
                outcome = AgentOutcome(status="completed", report=report)
            verdicts = not_judged(case)
            verdicts.update(recorded)
        outcome.usage = _usage(sample, model, tr.events)
    code = (sample.scores or {}).get("code_criteria")
    diff = str((code.metadata or {}).get("diff", "")) if code is not None else ""
    (run_dir / "diffs").mkdir(parents=True, exist_ok=True)
    (run_dir / "diffs" / f"{name}.patch").write_text(diff, encoding="utf-8", errors="replace")
    return sample_record(agent, run_dir, case, condition, epoch, outcome, verdicts, started_at=str(log_start(sample)),
                         duration_s=float(getattr(sample, "total_time", None) or 0.0))


def log_start(sample) -> str:
    for event in getattr(sample, "events", None) or []:
        stamp = getattr(event, "timestamp", None)
        if stamp is not None:
            return stamp.isoformat(timespec="seconds")
    return ""


def import_log(root: Path, log_path: Path, out_root: Path, condition: str = CONTROL) -> ImportResult:
    """Import every sample of one Inspect log into one run folder under ``out_root``."""
    log = read_log(log_path)
    out = ImportResult()
    known = set(list_case_ids(root, "all"))
    usable = []
    for sample in log.samples or []:
        if str(sample.id) not in known:
            out.problems.append(str(InputError(log_path, f"{sample.id!r} names no case of this checkout",
                                               field="samples.id")))
            continue
        usable.append(sample)
    if not usable:
        out.problems.append(str(InputError(log_path, "no samples of a known case", field="samples")))
        return out
    cases = {cid: load_case(root, cid) for cid in sorted({str(s.id) for s in usable})}
    model = log.eval.model
    agent = f"inspect:{model}"
    settings = {"model": model, "inspect_log": str(Path(log_path).resolve()), "task_args": log.eval.task_args,
                "model_roles": {k: getattr(v, "model", str(v)) for k, v in (log.eval.model_roles or {}).items()}}
    sandbox = log.eval.sandbox.type if log.eval.sandbox is not None else "unknown"
    epochs = max(int(s.epoch) for s in usable)
    run_dir = start_run(out_root, agent, list(cases.values()), condition, epochs, f"inspect:{sandbox}", "inspect",
                        settings)
    for sample in sorted(usable, key=lambda s: (str(s.id), s.epoch)):
        try:
            result = import_sample(run_dir, cases[str(sample.id)], sample, agent, model, condition,
                                   int(sample.epoch) - 1, Path(log_path))
        except InputError as exc:
            out.problems.append(str(exc))
            continue
        append_sample(run_dir, result)
        out.samples.append(result)
    write_state(run_dir, "finished")
    out.run_dirs.append(run_dir)
    return out
