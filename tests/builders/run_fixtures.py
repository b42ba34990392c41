"""Small run folders built from SampleResult records (no torch), for the statistics-facing commands."""

from __future__ import annotations

from pathlib import Path

from harness.core.results import append_sample, write_manifest
from harness.models import CRITERIA_DETERMINISTIC, CRITERIA_LLM, RunManifest, SampleResult, TokenUsage, Verdict


def verdicts(root: str, fix: str = "pass", other: str = "pass") -> dict[str, Verdict]:
    """root_cause and fix_verified as given; every other criterion ``other``."""
    out = {}
    for c in CRITERIA_LLM + CRITERIA_DETERMINISTIC:
        status = {"root_cause": root, "fix_verified": fix}.get(c, other)
        out[c] = Verdict(criterion=c, status=status, reason="not_judged" if status == "unscored" else None,
                         grader="test")
    return out


def make_run(parent: Path, run_id: str, arms: dict[str, dict[str, list[tuple[str, str]]]], agent: str = "agent",
             case_hash: dict[str, str] | None = None, status: dict[tuple[str, str, int], str] | None = None,
             cost: float | None = 0.01, created_at: str = "2026-12-01T10:00:00+00:00") -> Path:
    """``arms``: condition -> case -> [(root_cause, fix_verified) per epoch]. Returns the run folder."""
    run_dir = parent / run_id
    cases = sorted({c for per_case in arms.values() for c in per_case})
    epochs = max(len(v) for per_case in arms.values() for v in per_case.values())
    hashes = {c: (case_hash or {}).get(c, f"case-{c}") for c in cases}
    write_manifest(run_dir, RunManifest(
        run_id=run_id, created_at=created_at, harness_version="0.1.0", agent=agent, conditions=list(arms),
        case_ids=cases, epochs=epochs, case_sha256=hashes, answer_sha256={c: f"answer-{c}" for c in cases},
        prompt_template_sha256="p", sandbox="none"))
    for cond, per_case in arms.items():
        for case, outcomes in per_case.items():
            for epoch, (root, fix) in enumerate(outcomes):
                st = (status or {}).get((cond, case, epoch), "completed")
                append_sample(run_dir, SampleResult(
                    sample_id=f"{agent}/{cond}/{case}/{epoch}", agent=agent, condition=cond, case_id=case,
                    epoch=epoch, status=st, transcript="t.jsonl", transcript_sha256="x", diff="d.diff",
                    started_at=created_at, duration_s=1.0,
                    usage=TokenUsage(input_tokens=100, output_tokens=10, cost_usd=cost),
                    verdicts=verdicts("unscored", "unscored", "unscored") if st != "completed" else verdicts(root, fix)))
    return run_dir


def cases(n: int) -> list[str]:
    return [f"case_{i:02d}" for i in range(1, n + 1)]


def uniform(n: int, root: str, fix: str = "pass", k: int = 1) -> dict[str, list[tuple[str, str]]]:
    return {c: [(root, fix)] * k for c in cases(n)}


def pattern(roots: list[str], fix: str = "pass") -> dict[str, list[tuple[str, str]]]:
    return {c: [(r, fix)] for c, r in zip(cases(len(roots)), roots)}
