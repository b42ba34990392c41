"""Run samples (agent x condition x case x epoch), grade them, and save everything as it goes."""

from __future__ import annotations

import importlib.metadata
import platform
import secrets
import shutil
import tempfile
import time
import traceback
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from harness import __version__
from harness.agents.base import Agent, AgentOutcome, AgentTask, Limits, Toolbox
from harness.agents.llm import usage_from_events
from harness.cases import Case
from harness.errors import ConfigError, InfraError, IntegrityError, RunAborted
from harness.hashing import sha256_file, sha256_tree
from harness.models import CRITERIA_DETERMINISTIC, CRITERIA_LLM, RunManifest, SampleResult, Verdict
from harness.private_inputs import PrivateInputs
from harness.prompts import PROMPT_TEMPLATE_SHA256, render_system, render_task
from harness.results import append_sample, write_manifest
from harness.transcript import TranscriptWriter, harness_secrets
from harness.workspace import create_workspace, diff_trees, remove_workspace
from judges.grading import grade_deterministic, not_judged

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


def new_run_id(agent_name: str) -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in agent_name)
    return f"{stamp}-{safe}-{secrets.token_hex(2)}"


def sample_name(case_id: str, condition: str, epoch: int) -> str:
    return f"{case_id}__{condition}__e{epoch}"


@contextmanager
def run_scratch(root: Path):
    """One temp folder for a run: the private read-only copies of cases/ and answers/ (yielded) and,
    beside them, every workspace the run makes. Removed at the end, whatever happened."""
    work_dir = Path(tempfile.mkdtemp(prefix="mldb-run-"))
    inputs = None
    try:
        inputs = PrivateInputs(root, work_dir)
        yield inputs, work_dir
    finally:
        if inputs is not None:
            inputs.remove()
        shutil.rmtree(work_dir, ignore_errors=True)


def build_manifest(cfg: RunConfig, run_id: str) -> RunManifest:
    try:  # from package metadata: importing torch would cost a second and 180 MiB for one string
        torch_version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - torch is a dependency
        torch_version = "missing"
    return RunManifest(
        run_id=run_id,
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        harness_version=__version__,
        agent=cfg.agent.name,
        agent_settings={**cfg.agent.settings, "limits": asdict(cfg.limits)},
        conditions=list(cfg.conditions),
        case_ids=[c.id for c in cfg.cases],
        epochs=cfg.epochs,
        case_sha256={c.id: sha256_tree(c.case_dir) for c in cfg.cases},
        answer_sha256={c.id: sha256_tree(c.answer_dir) for c in cfg.cases},
        inputs_sha256=dict(cfg.inputs.sha256) if cfg.inputs else {},
        prompt_template_sha256=PROMPT_TEMPLATE_SHA256,
        skill_sha256=cfg.skill_sha256,
        judge=cfg.judge.spec if cfg.judge else None,
        judge_prompt_sha256=cfg.judge.prompt_sha256 if cfg.judge else None,
        sandbox=cfg.sandbox.name,
        sandbox_details=cfg.sandbox.describe(),
        platform={"python": platform.python_version(), "torch": torch_version, "machine": platform.machine()},
    )


def _all_unscored(reason: str) -> dict[str, Verdict]:
    return {c: Verdict(criterion=c, status="unscored", reason=reason, grader="none")
            for c in CRITERIA_LLM + CRITERIA_DETERMINISTIC}


def _grade(cfg: RunConfig, run_dir: Path, case: Case, events, outcome: AgentOutcome, ws: Path,
           transcript_rel: str, diff_rel: str) -> dict[str, Verdict]:
    try:
        diff = diff_trees(case.case_dir, ws)
    except OSError as exc:  # a workspace the diff cannot read is the agent's doing: tampering sees the marker
        diff = f"[... the final workspace could not be diffed: {exc} ...]\n"
    (run_dir / diff_rel).parent.mkdir(parents=True, exist_ok=True)
    (run_dir / diff_rel).write_text(diff, encoding="utf-8", errors="replace")
    guard = cfg.inputs.check if cfg.inputs else None
    roots = [cfg.inputs.root / "answers", cfg.inputs.source_root / "answers"] if cfg.inputs else []
    verdicts = not_judged(case)
    verdicts.update(grade_deterministic(case, events, outcome.report, diff, ws, cfg.sandbox, guard, roots))
    if cfg.judge is not None:
        verdicts.update(cfg.judge(case, events, run_dir / transcript_rel))
    return verdicts


def run_sample(cfg: RunConfig, run_dir: Path, case: Case, condition: str, epoch: int) -> SampleResult:
    """One sample, start to finish. Any failure becomes a typed status; nothing recorded is lost.

    Only two things leave as exceptions: a ConfigError from the agent (e.g. a refused key: every
    sample would fail the same way) and an IntegrityError (the private answers changed)."""
    name = sample_name(case.id, condition, epoch)
    transcript_rel, diff_rel = f"transcripts/{name}.jsonl", f"diffs/{name}.patch"
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    t0 = time.monotonic()
    outcome = AgentOutcome(status="infra_error")
    verdicts: dict[str, Verdict] = {}
    ws = None
    with TranscriptWriter(run_dir / transcript_rel, secrets=harness_secrets()) as transcript:
        try:
            if cfg.inputs:
                cfg.inputs.check()
            ws = create_workspace(case.case_dir, parent=cfg.work_dir)
            skill = cfg.skill_text if condition == SKILL else None
            system = render_system(skill)
            prompt = render_task((ws / "README.md").read_text(encoding="utf-8"), str(ws), case.manifest.entry_points)
            transcript.append("message", role="system", content=system)
            transcript.append("message", role="user", content=prompt)
            task = AgentTask(case_id=case.id, workspace=ws, system_prompt=system, prompt=prompt,
                             limits=cfg.limits, transcript=transcript,
                             tools=Toolbox(ws, transcript, cfg.sandbox, cfg.limits),
                             skill_text=skill, skill_path=cfg.skill_path if condition == SKILL else None)
            try:
                outcome = cfg.agent.run(task)
            except ConfigError as exc:  # e.g. a refused API key: abort the run, keep the transcript
                transcript.append("error", error_type="run_aborted", message=str(exc))
                raise
            except InfraError as exc:
                outcome = AgentOutcome(status="infra_error", error=str(exc))
            except Exception as exc:  # an agent crash is a result, not a harness crash; its calls were still spent
                outcome = AgentOutcome(status="agent_error", error=f"{type(exc).__name__}: {exc}",
                                       usage=usage_from_events(transcript.events))
                transcript.append("error", error_type="agent_error", message=traceback.format_exc()[-4000:])
            events = list(transcript.events)
            verdicts = _grade(cfg, run_dir, case, events, outcome, ws, transcript_rel, diff_rel)
        except (ConfigError, IntegrityError):
            raise
        except Exception as exc:  # copying, diffing or grading failed: this sample's infra_error, not the run's
            outcome = AgentOutcome(status="infra_error", report=outcome.report, usage=outcome.usage,
                                   tool_errors=outcome.tool_errors, error=f"{type(exc).__name__}: {exc}")
            transcript.append("error", error_type="infra_error", message=traceback.format_exc()[-4000:])
            verdicts = _all_unscored(f"infra_error: {type(exc).__name__}: {exc}"[:300])
        finally:
            if ws is not None:
                remove_workspace(ws)
    if not (run_dir / diff_rel).exists():
        (run_dir / diff_rel).parent.mkdir(parents=True, exist_ok=True)
        (run_dir / diff_rel).write_text("", encoding="utf-8")
    return SampleResult(
        sample_id=f"{cfg.agent.name}/{condition}/{case.id}/{epoch}",
        agent=cfg.agent.name, condition=condition, case_id=case.id, epoch=epoch,
        status=outcome.status, error=outcome.error, report=outcome.report,
        transcript=transcript_rel, transcript_sha256=sha256_file(run_dir / transcript_rel), diff=diff_rel,
        started_at=started_at, duration_s=round(time.monotonic() - t0, 3), usage=outcome.usage,
        tool_errors=outcome.tool_errors,
        verdicts=verdicts,
    )


ProgressFn = Callable[[str, int, int, SampleResult | None], None]


def run(cfg: RunConfig, progress: ProgressFn | None = None) -> Path:
    """Run every sample in order, appending each result as soon as it is graded. Returns the run folder."""
    run_id = cfg.run_id or new_run_id(cfg.agent.name)
    run_dir = cfg.out_root / run_id
    write_manifest(run_dir, build_manifest(cfg, run_id))
    plan = [(case, cond, epoch) for epoch in range(cfg.epochs) for case in cfg.cases for cond in cfg.conditions]
    for i, (case, cond, epoch) in enumerate(plan):
        label = f"{case.id} {cond} e{epoch}"
        if progress:
            progress(label, i, len(plan), None)
        try:
            result = run_sample(cfg, run_dir, case, cond, epoch)
        except (ConfigError, IntegrityError) as exc:
            raise RunAborted(f"run aborted at sample {i + 1}/{len(plan)} ({label}): {exc}. "
                             f"{i} finished sample(s) and this sample's transcript are kept in {run_dir}",
                             run_dir) from exc
        append_sample(run_dir, result)
        if progress:
            progress(label, i + 1, len(plan), result)
    return run_dir
