"""Re-judging saved runs: orchestration beside the runner, so ``judges/`` never reads a run folder.

Grades the LLM criteria of a saved run from its transcripts (never re-running an agent), or
each sample as it is run (``run --judge``), and measures the judge's input without a model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from harness.core.cases import Case, load_case
from harness.core.errors import InputError
from harness.core.hashing import sha256_file, sha256_tree
from harness.core.results import read_manifest, read_samples, rewrite_samples, write_manifest
from harness.core.transcript import read_transcript
from harness.models import SampleResult, Verdict
from judges.family import same_family_warning
from judges.key import judge_key
from judges.llm import Judge
from judges.rubric import DEFAULT_MAX_INPUT_TOKENS
from judges.sizes import InputSize, input_size

SKIPPED_STATUSES = {"infra_error"}  # the harness failed, not the agent: nothing fair to grade


@dataclass
class JudgeRunResult:
    judged: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    sizes: list[InputSize] = field(default_factory=list)


def _events(run_dir: Path, sample: SampleResult):
    path = Path(run_dir) / sample.transcript
    if not path.is_file():
        raise InputError(path, f"transcript of {sample.sample_id} not found")
    if sha256_file(path) != sample.transcript_sha256:
        raise InputError(path, f"transcript of {sample.sample_id} changed since the run (sha256 mismatch)")
    return read_transcript(path)


def run_warnings(run_dir: Path, root: Path, judge_spec: str | None) -> list[str]:
    manifest = read_manifest(run_dir)
    out = []
    if judge_spec:
        w = same_family_warning(judge_spec, manifest.agent, manifest.agent_settings.get("model"))
        out += [w] if w else []
    for cid, digest in manifest.answer_sha256.items():
        answer_dir = root / "answers" / cid
        if answer_dir.is_dir() and sha256_tree(answer_dir) != digest:
            out.append(f"answers/{cid} changed since the run: grading against the current key")
    return out


def judge_run(run_dir: Path, root: Path, judge: Judge | None, progress: Callable[[str], None] | None = None,
              case_ids: list[str] | None = None, judge_spec: str | None = None,
              max_input_tokens: int | None = DEFAULT_MAX_INPUT_TOKENS) -> JudgeRunResult:
    """Grade the LLM criteria of every sample; with ``judge=None`` only measure the input sizes
    (``judge_spec`` then still names the judge for the family warning, ``max_input_tokens`` the cap).

    samples.jsonl is rewritten atomically after each sample, so an interrupted re-grade keeps
    what it finished (and the verdict cache makes finishing it free).
    """
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    result = JudgeRunResult(warnings=run_warnings(run_dir, root, judge.spec if judge else judge_spec))
    samples = read_samples(run_dir)
    cases: dict[str, Case] = {}
    for i, sample in enumerate(samples):
        if case_ids and sample.case_id not in case_ids:
            continue
        if sample.status in SKIPPED_STATUSES:
            result.skipped.append(sample.sample_id)
            continue
        case = cases.get(sample.case_id) or cases.setdefault(sample.case_id, load_case(root, sample.case_id))
        events = _events(run_dir, sample)
        key = judge_key(case.key)
        cap = judge.settings.max_input_tokens if judge is not None else max_input_tokens
        result.sizes.append(input_size(sample.sample_id, events, key, max_input_tokens=cap))
        if judge is None:
            continue
        if progress:
            progress(sample.sample_id)
        verdicts = dict(sample.verdicts)
        verdicts.update(judge.judge(events, key, sample.transcript_sha256))
        samples[i] = sample.model_copy(update={"verdicts": verdicts})
        rewrite_samples(run_dir, samples)
        result.judged.append(sample.sample_id)
    if judge is not None:
        write_manifest(run_dir, manifest.model_copy(update={"judge": judge.spec,
                                                            "judge_prompt_sha256": judge.prompt_sha256}))
    return result


@dataclass
class RunJudgeHook:
    """What ``run --judge`` hands the runner: grade one finished sample from its saved transcript."""

    judge: Judge

    @property
    def spec(self) -> str:
        return self.judge.spec

    @property
    def prompt_sha256(self) -> str:
        return self.judge.prompt_sha256

    def __call__(self, case: Case, events, transcript_path: Path) -> dict[str, Verdict]:
        return self.judge.judge(events, judge_key(case.key), sha256_file(transcript_path))
