"""One sample, start to finish: the workspace, the agent's run, grading, and its line for samples.jsonl."""

from __future__ import annotations

import time
import traceback
from datetime import datetime, timezone
from pathlib import Path

from harness.agents.base import AgentOutcome, AgentTask, Toolbox
from harness.agents.llm import usage_from_events
from harness.core.cases import Case
from harness.core.criteria import ALL_CRITERIA
from harness.core.errors import ConfigError, InfraError, IntegrityError
from harness.core.hashing import sha256_file
from harness.core.prompts import render_system, render_task
from harness.core.transcript import TranscriptWriter, harness_secrets
from harness.isolation import shutdown
from harness.isolation.shutdown import Interrupted
from harness.isolation.slots import CpuSlots, SampleClock, SlottedSandbox
from harness.models import SampleResult, Verdict
from harness.running.config import SKILL, RunConfig, sample_name
from harness.workspaces.verification import verify_for_grading
from harness.workspaces.workspace import create_workspace, diff_trees, remove_workspace
from judges.grading import grade_deterministic, not_judged


def _all_unscored(reason: str) -> dict[str, Verdict]:
    return {c: Verdict(criterion=c, status="unscored", reason=reason, grader="none")
            for c in ALL_CRITERIA}


def _grade(cfg: RunConfig, run_dir: Path, case: Case, events, outcome: AgentOutcome, ws: Path,
           transcript_rel: str, diff_rel: str, sandbox) -> dict[str, Verdict]:
    try:
        diff = diff_trees(case.case_dir, ws)
    except OSError as exc:  # a workspace the diff cannot read is the agent's doing: tampering sees the marker
        diff = f"[... the final workspace could not be diffed: {exc} ...]\n"
    (run_dir / diff_rel).parent.mkdir(parents=True, exist_ok=True)
    (run_dir / diff_rel).write_text(diff, encoding="utf-8", errors="replace")
    guard = cfg.inputs.check if cfg.inputs else None
    roots = [cfg.inputs.root / "answers", cfg.inputs.source_root / "answers"] if cfg.inputs else []
    verdicts = not_judged(case)
    verdicts.update(grade_deterministic(case, events, outcome.report, diff, ws, sandbox, guard, roots,
                                        verify=lambda: verify_for_grading(case, ws, sandbox, guard)))
    if cfg.judge is not None:
        verdicts.update(cfg.judge(case, events, run_dir / transcript_rel))
    return verdicts


def _broken_verifier(verdicts: dict[str, Verdict]) -> str | None:
    """The reason when the verifier could not run even on the gold patch: the harness's failure."""
    v = verdicts.get("fix_verified")
    if v is not None and v.status == "unscored" and (v.reason or "").startswith("verifier_error"):
        return v.reason
    return None


def run_sample(cfg: RunConfig, run_dir: Path, case: Case, condition: str, epoch: int,
               slots: CpuSlots | None = None) -> SampleResult:
    """One sample, start to finish. Any failure becomes a typed status; nothing recorded is lost.

    Three things leave as exceptions: a ConfigError from the agent (e.g. a refused key: every
    sample would fail the same way), an IntegrityError (the private answers changed) and
    Interrupted (the run is stopping; the partial transcript stays for resume to set aside)."""
    name = sample_name(case.id, condition, epoch)
    transcript_rel, diff_rel = f"transcripts/{name}.jsonl", f"diffs/{name}.patch"
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    clock = SampleClock()
    sandbox = SlottedSandbox(cfg.sandbox, slots or CpuSlots(1), clock)
    outcome = AgentOutcome(status="infra_error")
    verdicts: dict[str, Verdict] = {}
    ws = None
    with TranscriptWriter(run_dir / transcript_rel, secrets=harness_secrets()) as transcript:
        try:
            shutdown.check()
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
                             tools=Toolbox(ws, transcript, sandbox, cfg.limits),
                             skill_text=skill, skill_path=cfg.skill_path if condition == SKILL else None,
                             clock=clock)
            try:
                outcome = cfg.agent.run(task)
            except (ConfigError, Interrupted) as exc:  # e.g. a refused API key: abort the run, keep the transcript
                transcript.append("error", error_type="interrupted" if isinstance(exc, Interrupted) else "run_aborted",
                                  message=str(exc))
                raise
            except InfraError as exc:  # the provider or the harness failed, not the agent: unscored, redone
                outcome = AgentOutcome(status="infra_error", error=str(exc), usage=usage_from_events(transcript.events))
                transcript.append("error", error_type="infra_error", message=str(exc))
            except Exception as exc:  # an agent crash is a result, not a harness crash; its calls were still spent
                outcome = AgentOutcome(status="agent_error", error=f"{type(exc).__name__}: {exc}",
                                       usage=usage_from_events(transcript.events))
                transcript.append("error", error_type="agent_error", message=traceback.format_exc()[-4000:])
            shutdown.check()  # the run stopped while the agent worked: its commands were killed, so no result
            outcome, verdicts = grade_outcome(cfg, run_dir, case, transcript, outcome, ws, transcript_rel, diff_rel,
                                              sandbox)
            shutdown.check()  # grading's processes were killed mid-way: not a verdict
        except Interrupted:
            transcript.append("error", error_type="interrupted", message="the run was stopped during this sample")
            raise
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
    return sample_record(cfg.agent.name, run_dir, case, condition, epoch, outcome, verdicts, started_at,
                         duration_s=time.monotonic() - clock.start, cpu_wait_s=clock.waited)


def grade_outcome(cfg: RunConfig, run_dir: Path, case: Case, transcript: TranscriptWriter, outcome: AgentOutcome,
                  ws: Path, transcript_rel: str, diff_rel: str, sandbox) -> tuple[AgentOutcome, dict[str, Verdict]]:
    """Grade a finished agent's work (every criterion; an infra_error is all unscored). A verifier that
    cannot run even on the gold patch turns the sample into infra_error: the harness's failure, not the agent's.
    Shared by ``run_sample`` and ``harness.running.session`` (a sample driven one command at a time)."""
    if outcome.status == "infra_error":
        return outcome, _all_unscored(f"infra_error: {outcome.error}"[:300])
    verdicts = _grade(cfg, run_dir, case, list(transcript.events), outcome, ws, transcript_rel, diff_rel, sandbox)
    broken = _broken_verifier(verdicts)
    if broken:
        outcome = AgentOutcome(status="infra_error", report=outcome.report, usage=outcome.usage,
                               tool_errors=outcome.tool_errors, error=broken)
        transcript.append("error", error_type="infra_error", message=broken)
        verdicts = _all_unscored(f"infra_error: {broken}"[:300])
    return outcome, verdicts


def sample_record(agent_name: str, run_dir: Path, case: Case, condition: str, epoch: int, outcome: AgentOutcome,
                  verdicts: dict[str, Verdict], started_at: str, duration_s: float,
                  cpu_wait_s: float = 0.0) -> SampleResult:
    """The sample's line for samples.jsonl (an empty diff file when grading never wrote one)."""
    name = sample_name(case.id, condition, epoch)
    transcript_rel, diff_rel = f"transcripts/{name}.jsonl", f"diffs/{name}.patch"
    if not (run_dir / diff_rel).exists():
        (run_dir / diff_rel).parent.mkdir(parents=True, exist_ok=True)
        (run_dir / diff_rel).write_text("", encoding="utf-8")
    return _writable(SampleResult(
        sample_id=f"{agent_name}/{condition}/{case.id}/{epoch}",
        agent=agent_name, condition=condition, case_id=case.id, epoch=epoch,
        status=outcome.status, error=outcome.error, report=outcome.report,
        transcript=transcript_rel, transcript_sha256=sha256_file(run_dir / transcript_rel), diff=diff_rel,
        started_at=started_at, duration_s=round(duration_s, 3), usage=outcome.usage,
        tool_errors=outcome.tool_errors, cpu_wait_s=round(cpu_wait_s, 3),
        verdicts=verdicts,
    ))


def _writable(result: SampleResult) -> SampleResult:
    """The result, or, if something the agent controls still makes it unserialisable, the same sample as
    an unscored infra_error: one bad record must not stop the whole run."""
    try:
        result.model_dump_json()
        return result
    except Exception as exc:  # noqa: BLE001 - any serialisation failure
        reason = f"infra_error: the sample's record could not be written ({type(exc).__name__})"
        return result.model_copy(update={"status": "infra_error", "report": None, "error": reason,
                                         "verdicts": _all_unscored(reason)})
