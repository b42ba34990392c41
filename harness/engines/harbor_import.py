"""``ml-debug-bench import harbor JOB_DIR``: a Harbor job's trials as a run folder of ours.

Harbor (laude-institute/harbor 0.26) writes a job folder with one folder per trial::

    JOB_DIR/config.json, result.json          the job's (not read)
    JOB_DIR/<trial>/result.json               TrialResult: task_name, agent_info, agent_result,
                                              verifier_result.rewards, exception_info, timings
    JOB_DIR/<trial>/agent/trajectory.json     the agent's ATIF trajectory
    JOB_DIR/<trial>/verifier/reward.json      the verifier's rewards (reward.txt: one number)
    JOB_DIR/<trial>/artifacts/app/            the agent's final /app, collected by the exported task (artifacts =
                                              ["/app"]; Harbor mirrors an artifact's absolute source path under
                                              artifacts/)

Each trial becomes one sample, written with the runner's own writers (TranscriptWriter,
``sample_record``, ``append_sample``, ``write_manifest``): the trajectory becomes the transcript, the
verifier's rewards the verdicts of the criteria our exported task's verifier grades (``grader:
harbor_verifier``), the final files the diff. The LLM criteria stay ``not_judged`` until ``judge``;
``answer_leak`` is graded here from the transcript. A trial Harbor ended with an exception is
``infra_error`` (all unscored), except an agent timeout, which is ``limit_reached`` and keeps its rewards.
A trial that cannot be read is reported by name and left out; the others are imported.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from harness.agents.base import AgentOutcome
from harness.agents.cli_base import REPORT_FILE, read_report_file
from harness.agents.llm import usage_from_events
from harness.core.cases import Case, list_case_ids, load_case
from harness.core.criteria import GradingInput, load_grader
from harness.core.errors import InputError
from harness.core.results import append_sample, write_state
from harness.core.transcript import TranscriptWriter, harness_secrets
from harness.engines.atif import Trajectory, append_events, read_trajectory, report_from_calls
from harness.engines.imported import ImportResult, start_run
from harness.models import SampleResult, TokenUsage, Verdict
from harness.running.config import CONTROL, sample_name
from harness.running.sample import _all_unscored, sample_record
from harness.workspaces.workspace import diff_trees
from judges.grading import case_file_lines, not_judged

VERIFIER_GRADER = "harbor_verifier"
# the criteria our exported task's verifier writes to reward.json (1 = pass, 0 = fail); `reward` is their AND
REWARD_CRITERIA = ("fix_verified", "location_match", "fallback_added", "tampering")
# Harbor's exception for an agent that ran out of time: the verifier still ran, so the trial is graded
TIMEOUT_EXCEPTIONS = {"AgentTimeoutError"}
FINAL_FILES = Path("artifacts") / "app"  # task.toml: artifacts = ["/app"] (harness/engines/harbor_task.py)
TRAJECTORY = Path("agent") / "trajectory.json"


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class HarborModelInfo(_Open):
    name: str
    provider: str | None = None


class HarborAgentInfo(_Open):
    name: str
    version: str | None = None
    model_info: HarborModelInfo | None = None


class HarborAgentContext(_Open):
    n_input_tokens: int | None = None
    n_output_tokens: int | None = None
    cost_usd: float | None = None


class HarborVerifierResult(_Open):
    rewards: dict[str, float] | None = None


class HarborExceptionInfo(_Open):
    exception_type: str
    exception_message: str = ""


class HarborTrialResult(_Open):
    """The fields of Harbor's ``TrialResult`` (``harbor.models.trial.result``) an import reads."""

    task_name: str
    trial_name: str
    agent_info: HarborAgentInfo
    agent_result: HarborAgentContext | None = None
    verifier_result: HarborVerifierResult | None = None
    exception_info: HarborExceptionInfo | None = None
    started_at: str | None = None
    finished_at: str | None = None

    @property
    def agent_label(self) -> str:
        model = self.agent_info.model_info
        return f"harbor:{self.agent_info.name}" + (f":{model.name}" if model else "")


@dataclass
class Trial:
    folder: Path
    result: HarborTrialResult
    case_id: str


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    return f"field {'.'.join(str(p) for p in err['loc']) or '(top level)'}: {err['msg']}"


def read_trial_result(folder: Path) -> HarborTrialResult:
    path = Path(folder) / "result.json"
    if path.is_symlink() or not path.is_file():
        raise InputError(path, "no trial result (expected a regular file result.json)")
    try:
        return HarborTrialResult.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        raise InputError(path, f"not a Harbor trial result: {_first_error(exc)}") from exc


def trial_folders(job_dir: Path) -> list[Path]:
    """The trial folders of a job: its sub-folders (not links) that hold a result.json."""
    job_dir = Path(job_dir)
    if not job_dir.is_dir():
        raise InputError(job_dir, "not a folder (expected a Harbor job folder)")
    found = sorted(p for p in job_dir.iterdir()
                   if p.is_dir() and not p.is_symlink() and (p / "result.json").exists())
    if not found:
        raise InputError(job_dir, "no trial folders (sub-folders with a result.json): not a Harbor job folder")
    return found


def case_of(task_name: str, known: set[str], where: Path) -> str:
    """Our case id in a Harbor task name: the name itself, or its last part (``dataset/case_01``, ``x__case_01``)."""
    if ".." not in task_name.split("/"):
        for candidate in (task_name, task_name.rsplit("/", 1)[-1], task_name.rsplit("__", 1)[-1]):
            if candidate in known:
                return candidate
    raise InputError(where, f"{task_name!r} names no case of this checkout", field="task_name")


def rewards_of(trial: Trial) -> dict[str, float] | None:
    """The verifier's rewards: result.json's verifier_result, else verifier/reward.json, else reward.txt."""
    if trial.result.verifier_result is not None and trial.result.verifier_result.rewards is not None:
        return dict(trial.result.verifier_result.rewards)
    verifier = trial.folder / "verifier"
    as_json, as_text = verifier / "reward.json", verifier / "reward.txt"
    if as_json.is_file() and not as_json.is_symlink():
        try:
            data = json.loads(as_json.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(as_json, f"not JSON: {exc}") from exc
        if not isinstance(data, dict) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                 for v in data.values()):
            raise InputError(as_json, "expected a flat JSON object of numbers (criterion -> reward)")
        return {str(k): float(v) for k, v in data.items()}
    if as_text.is_file() and not as_text.is_symlink():
        try:
            return {"reward": float(as_text.read_text(encoding="utf-8").strip())}
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise InputError(as_text, "expected one number") from exc
    return None


def verdicts_from_rewards(rewards: dict[str, float] | None, where: Path) -> dict[str, Verdict]:
    """One verdict per criterion our exported verifier writes: 1 pass, 0 fail, missing unscored."""
    out = {}
    for criterion in REWARD_CRITERIA:
        value = (rewards or {}).get(criterion)
        if value is None:
            reason = ("not in the Harbor verifier's rewards" if rewards is not None
                      else "the Harbor verifier left no rewards")
            out[criterion] = Verdict(criterion=criterion, status="unscored", reason=reason, grader=VERIFIER_GRADER)
            continue
        if not isinstance(value, (int, float)) or math.isnan(value) or value not in (0, 1):
            raise InputError(where, f"{value!r} is not 0 or 1", field=f"rewards.{criterion}")
        out[criterion] = Verdict(criterion=criterion, status="pass" if value == 1 else "fail", grader=VERIFIER_GRADER,
                                 reason="graded by Harbor's verifier",
                                 details={"reward": value, "harbor_reward": (rewards or {}).get("reward")})
    return out


def _final_files_diff(case: Case, trial: Trial) -> tuple[str, Any]:
    """The diff of the final files against the case (without report.json), and the report.json they hold."""
    kept = trial.folder / FINAL_FILES
    if kept.is_symlink() or not kept.is_dir():
        return "", None
    with tempfile.TemporaryDirectory(prefix="mldb-harbor-") as tmp:
        copy = Path(tmp) / "workspace"
        shutil.copytree(kept, copy, symlinks=True)  # links stay links: nothing outside the job is read
        report, _ = read_report_file(copy / REPORT_FILE) if (copy / REPORT_FILE).exists() else (None, None)
        if (copy / REPORT_FILE).is_file() or (copy / REPORT_FILE).is_symlink():
            (copy / REPORT_FILE).unlink()
        return diff_trees(case.case_dir, copy), report


def _duration(result: HarborTrialResult) -> float:
    try:
        start = datetime.fromisoformat((result.started_at or "").replace("Z", "+00:00"))
        end = datetime.fromisoformat((result.finished_at or "").replace("Z", "+00:00"))
        return max(0.0, (end - start).total_seconds())
    except ValueError:
        return 0.0


def _usage(result: HarborTrialResult, events) -> TokenUsage:
    ctx = result.agent_result
    if ctx is not None and (ctx.n_input_tokens or ctx.n_output_tokens):
        return TokenUsage(input_tokens=ctx.n_input_tokens or 0, output_tokens=ctx.n_output_tokens or 0,
                          cost_usd=ctx.cost_usd)
    return usage_from_events(events)


def import_trial(root: Path, run_dir: Path, case: Case, trial: Trial, agent: str, condition: str,
                 epoch: int) -> SampleResult:
    """One trial as one sample of ``run_dir``. A trial that cannot be read raises InputError before
    anything of it is written."""
    result = trial.result
    errored = result.exception_info is not None and result.exception_info.exception_type not in TIMEOUT_EXCEPTIONS
    trajectory: Trajectory | None = None
    if (trial.folder / TRAJECTORY).exists() or not errored:
        trajectory = read_trajectory(trial.folder / TRAJECTORY)
    rewards = None if errored else rewards_of(trial)
    reward_verdicts = None if errored else verdicts_from_rewards(rewards, trial.folder / "result.json")
    diff, file_report = ("", None) if errored else _final_files_diff(case, trial)
    name = sample_name(case.id, condition, epoch)
    with TranscriptWriter(run_dir / "transcripts" / f"{name}.jsonl", secrets=harness_secrets()) as tr:
        if trajectory is not None:
            append_events(trajectory, tr)
        report = (report_from_calls(trajectory) if trajectory else None) or file_report
        t = tr.events[-1].t if tr.events else 0.0  # the trajectory's clock, not the import's
        if report is not None:
            tr.append("report", report=report, t=t)
        if errored:
            info = result.exception_info
            why = f"Harbor trial raised {info.exception_type}: {info.exception_message}"[:300]
            tr.append("error", error_type="infra_error", message=why, t=t)
            outcome = AgentOutcome(status="infra_error", report=report, error=why, usage=_usage(result, tr.events))
            verdicts = _all_unscored(f"infra_error: {why}"[:300])
        else:
            if result.exception_info is not None:
                why = f"{result.exception_info.exception_type}: {result.exception_info.exception_message}"[:300]
                tr.append("error", error_type="limit_reached", message=why, t=t)
                outcome = AgentOutcome(status="limit_reached", report=report, error=why)
            elif report is None:
                outcome = AgentOutcome(status="agent_error", error="report_missing: the trajectory has no "
                                       "submit_report call and the final files no report.json")
                tr.append("error", error_type="agent_error", message=outcome.error, t=t)
            else:
                outcome = AgentOutcome(status="completed", report=report)
            outcome.usage = _usage(result, tr.events)
            verdicts = not_judged(case)
            verdicts.update(reward_verdicts)
            g = GradingInput(case=case, events=list(tr.events), report=report, diff=diff, final_workspace=Path(),
                             sandbox=None, answer_roots=[Path(root).resolve() / "answers"],
                             file_lines=case_file_lines(case))
            verdicts["answer_leak"] = load_grader("answer_leak")(g)
    (run_dir / "diffs").mkdir(parents=True, exist_ok=True)
    (run_dir / "diffs" / f"{name}.patch").write_text(diff, encoding="utf-8", errors="replace")
    return sample_record(agent, run_dir, case, condition, epoch, outcome, verdicts,
                         started_at=result.started_at or "", duration_s=_duration(result))


def import_job(root: Path, job_dir: Path, out_root: Path, condition: str = CONTROL) -> ImportResult:
    """Import every trial of ``job_dir``: one run folder per Harbor agent (and model) under ``out_root``.
    Trials that cannot be read are listed in ``problems`` by file and field; the rest are imported."""
    root, job_dir = Path(root), Path(job_dir)
    known = set(list_case_ids(root, "all"))
    out = ImportResult()
    trials: list[Trial] = []
    for folder in trial_folders(job_dir):
        try:
            result = read_trial_result(folder)
            trials.append(Trial(folder, result, case_of(result.task_name, known, folder / "result.json")))
        except InputError as exc:
            out.problems.append(str(exc))
    cases = {cid: load_case(root, cid) for cid in sorted({t.case_id for t in trials})}
    by_agent: dict[str, list[Trial]] = {}
    for trial in sorted(trials, key=lambda t: (t.result.started_at or "", t.folder.name)):
        by_agent.setdefault(trial.result.agent_label, []).append(trial)
    for agent, group in sorted(by_agent.items()):
        counts: dict[str, int] = {}
        for t in group:
            counts[t.case_id] = counts.get(t.case_id, 0) + 1
        first = group[0].result
        config = (first.model_extra or {}).get("config")
        env = config.get("environment") if isinstance(config, dict) else None
        settings = {"harbor_agent": first.agent_info.name, "harbor_agent_version": first.agent_info.version,
                    "model": first.agent_info.model_info.name if first.agent_info.model_info else None,
                    "job_dir": str(job_dir.resolve()), "trials": [t.folder.name for t in group]}
        run_dir = start_run(out_root, agent, [cases[c] for c in counts], condition, max(counts.values()),
                            f"harbor:{env.get('type', 'unknown') if isinstance(env, dict) else 'unknown'}",
                            "harbor", settings)
        write_state(run_dir, "running")
        epochs: dict[str, int] = {}
        for t in group:
            epoch = epochs.get(t.case_id, 0)
            try:
                sample = import_trial(root, run_dir, cases[t.case_id], t, agent, condition, epoch)
            except InputError as exc:
                out.problems.append(str(exc))
                continue
            epochs[t.case_id] = epoch + 1
            append_sample(run_dir, sample)
            out.samples.append(sample)
        write_state(run_dir, "finished")
        out.run_dirs.append(run_dir)
    return out
