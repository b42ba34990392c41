"""Run samples (agent x condition x case x epoch), grade them, and save everything as it goes."""

from __future__ import annotations

import platform
import secrets
import time
import traceback
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from harness import __version__
from harness.agents.base import Agent, AgentOutcome, AgentTask, Limits, Toolbox
from harness.cases import Case
from harness.errors import ConfigError, InfraError, RunAborted
from harness.hashing import sha256_file, sha256_tree
from harness.models import RunManifest, SampleResult
from harness.prompts import PROMPT_TEMPLATE_SHA256, render_system, render_task
from harness.results import append_sample, write_manifest
from harness.transcript import TranscriptWriter
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
    limits: Limits = Limits()
    sandbox: object = None
    run_id: str | None = None
    # Optional LLM judge, called as judge(case, events, transcript_path) -> {criterion: Verdict}
    # after deterministic grading; it must expose .spec and .prompt_sha256 for the manifest.
    judge: Callable | None = None


def new_run_id(agent_name: str) -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in agent_name)
    return f"{stamp}-{safe}-{secrets.token_hex(2)}"


def sample_name(case_id: str, condition: str, epoch: int) -> str:
    return f"{case_id}__{condition}__e{epoch}"


def build_manifest(cfg: RunConfig, run_id: str) -> RunManifest:
    try:
        import torch
        torch_version = torch.__version__
    except ImportError:  # pragma: no cover - torch is a dependency
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
        prompt_template_sha256=PROMPT_TEMPLATE_SHA256,
        skill_sha256=cfg.skill_sha256,
        judge=cfg.judge.spec if cfg.judge else None,
        judge_prompt_sha256=cfg.judge.prompt_sha256 if cfg.judge else None,
        sandbox=cfg.sandbox.name,
        platform={"python": platform.python_version(), "torch": torch_version, "machine": platform.machine()},
    )


def run_sample(cfg: RunConfig, run_dir: Path, case: Case, condition: str, epoch: int) -> SampleResult:
    """One sample, start to finish. Any failure becomes a typed status; nothing recorded is lost."""
    name = sample_name(case.id, condition, epoch)
    transcript_rel, diff_rel = f"transcripts/{name}.jsonl", f"diffs/{name}.patch"
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    t0 = time.monotonic()
    ws = create_workspace(case.case_dir)
    try:
        with TranscriptWriter(run_dir / transcript_rel) as transcript:
            skill = cfg.skill_text if condition == SKILL else None
            system = render_system(skill)
            prompt = render_task((ws / "README.md").read_text(encoding="utf-8"), str(ws))
            transcript.append("message", role="system", content=system)
            transcript.append("message", role="user", content=prompt)
            task = AgentTask(case_id=case.id, workspace=ws, system_prompt=system, prompt=prompt,
                             limits=cfg.limits, transcript=transcript,
                             tools=Toolbox(ws, transcript, cfg.sandbox, cfg.limits))
            try:
                outcome = cfg.agent.run(task)
            except ConfigError as exc:  # e.g. a refused API key: abort the run, keep the transcript
                transcript.append("error", error_type="run_aborted", message=str(exc))
                raise
            except InfraError as exc:
                outcome = AgentOutcome(status="infra_error", error=str(exc))
            except Exception as exc:  # an agent crash is a result, not a harness crash
                outcome = AgentOutcome(status="agent_error", error=f"{type(exc).__name__}: {exc}")
                transcript.append("error", error_type="agent_error", message=traceback.format_exc()[-4000:])
            events = list(transcript.events)
        diff = diff_trees(case.case_dir, ws)
        (run_dir / diff_rel).parent.mkdir(parents=True, exist_ok=True)
        (run_dir / diff_rel).write_text(diff, encoding="utf-8")
        verdicts = not_judged(case)
        verdicts.update(grade_deterministic(case, events, outcome.report, diff, ws))
        if cfg.judge is not None:
            verdicts.update(cfg.judge(case, events, run_dir / transcript_rel))
    finally:
        remove_workspace(ws)
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
        except ConfigError as exc:
            raise RunAborted(f"run aborted at sample {i + 1}/{len(plan)} ({label}): {exc}. "
                             f"{i} finished sample(s) and this sample's transcript are kept in {run_dir}",
                             run_dir) from exc
        append_sample(run_dir, result)
        if progress:
            progress(label, i + 1, len(plan), result)
    return run_dir
