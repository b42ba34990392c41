"""Blind solves: a strong model, driven through ``session``, that saw only the task prompt and its own
commands' output. Each solve is kept in ``answers/<case>/blind/NN/`` as evidence of the case's measured
difficulty (docs/cases.md, "Difficulty measured by solving"): its transcript, its sample result, its final
diff, and a hand judgement of its root cause against the key. ``validate`` re-runs the verifier on every
recorded diff and requires the recorded verdict, so a verifier change that flips a solve is seen."""

from __future__ import annotations

import json
import posixpath
import re
import shutil
from pathlib import Path
from typing import Literal

from pydantic import Field

from harness.core.cases import Case, load_record
from harness.models import Record

SOLVE_FILE = "solve.toml"
# The frontier tier's entry rule (docs/cases.md): hard for a strong model, fair with one sentence of help.
FRONTIER_MIN_BLIND, FRONTIER_MAX_BLIND_SOLVED = 3, 1
FRONTIER_MIN_HINTED, FRONTIER_MIN_HINTED_SOLVED = 3, 2


class BlindSolve(Record):
    """``answers/<case>/blind/NN/solve.toml``: one blind (or hinted) solve and its hand judgement."""

    model: str = Field(description="the model that solved, as precisely as its driver can name it")
    driver: str = Field(description="the session's agent name, e.g. session:claude-blind")
    hinted: bool = Field(default=False, description="given one sentence naming the subsystem, never the bug")
    hint: str = ""
    date: str
    harness_commit: str = Field(description="the checkout the session ran from")
    minutes: float = Field(ge=0, description="wall time from session start to submit")
    commands: int = Field(ge=0, description="session exec calls")
    root_cause_right: bool = Field(description="judged by hand against the key")
    root_cause_reason: str = Field(min_length=10, description="one line: why the diagnosis matches the key or not")
    fix_verified: Literal["pass", "fail"] = Field(description="the verifier's verdict on diff.patch; validate "
                                                              "re-runs it and requires this")
    self_difficulty: int | None = Field(default=None, ge=1, le=5, description="the solver's own rating, 1-5")
    misled_by: str = Field(default="", description="what the solver said misled it or cost it time")

    @property
    def solved(self) -> bool:
        return self.root_cause_right and self.fix_verified == "pass"


def solve_dirs(case: Case) -> list[Path]:
    root = case.answer_dir / "blind"
    return sorted(p for p in root.iterdir() if (p / SOLVE_FILE).is_file()) if root.is_dir() else []


def load_solves(case: Case) -> list[tuple[Path, BlindSolve]]:
    return [(d, load_record(d / SOLVE_FILE, BlindSolve)) for d in solve_dirs(case)]


def record_solve(run_dir: Path, case: Case, judgement: dict) -> Path:
    """Copy a finished session sample (transcript, result, diff) into the case's next ``blind/NN/`` folder,
    with ``solve.toml`` from ``judgement`` plus what the run folder says (minutes, commands, verdict)."""
    from harness.core.results import read_samples
    from harness.core.transcript import read_transcript

    samples = [x for x in read_samples(run_dir) if x.case_id == case.id]
    if len(samples) != 1:
        raise ValueError(f"{run_dir}: expected one sample of {case.id}, found {len(samples)}")
    sample = samples[0]
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    events = read_transcript(run_dir / sample.transcript)
    verdict = sample.verdicts["fix_verified"].status
    if verdict not in ("pass", "fail"):
        raise ValueError(f"{run_dir}: fix_verified is {verdict}; only a verdict can be recorded")
    solve = BlindSolve(driver=sample.agent, date=sample.started_at[:10], minutes=round(sample.duration_s / 60, 1),
                       harness_commit=str((manifest.get("provenance") or {}).get("git_commit", "unknown")),
                       commands=sum(1 for e in events if e.kind == "tool_call"), fix_verified=verdict,
                       **judgement)
    root = case.answer_dir / "blind"
    root.mkdir(exist_ok=True)
    dest = root / f"{len(solve_dirs(case)) + 1:02d}"
    dest.mkdir()
    shutil.copyfile(run_dir / sample.transcript, dest / "transcript.jsonl")
    shutil.copyfile(run_dir / sample.diff, dest / "diff.patch")
    (dest / "sample.json").write_text(sample.model_dump_json(indent=1), encoding="utf-8")
    (dest / SOLVE_FILE).write_text(_toml(solve), encoding="utf-8")
    return dest


def _toml(solve: BlindSolve) -> str:
    out = []
    for name, value in solve.model_dump().items():
        if value is None:
            continue
        out.append(f"{name} = {json.dumps(value) if not isinstance(value, bool) else str(value).lower()}")
    return "\n".join(out) + "\n"


def tier_rates(cases: list[Case]) -> dict[str, dict[str, int]]:
    """Per tier: cases, blind solves, root causes right, fixes accepted, both; the same for hinted solves."""
    out: dict[str, dict[str, int]] = {}
    for case in cases:
        row = out.setdefault(case.tier, {"cases": 0, "cases_with_solves": 0, "blind": 0, "blind_root_cause": 0,
                                         "blind_fix": 0, "blind_solved": 0, "hinted": 0, "hinted_solved": 0})
        row["cases"] += 1
        solves = [s for _, s in load_solves(case)]
        row["cases_with_solves"] += bool(solves)
        for s in solves:
            if s.hinted:
                row["hinted"] += 1
                row["hinted_solved"] += s.solved
            else:
                row["blind"] += 1
                row["blind_root_cause"] += s.root_cause_right
                row["blind_fix"] += s.fix_verified == "pass"
                row["blind_solved"] += s.solved
    return out


def frontier_entry(solves: list[BlindSolve]) -> tuple[bool, str]:
    """Whether a frontier case meets the tier's entry rule, and the counts behind the answer."""
    blind = [s for s in solves if not s.hinted]
    hinted = [s for s in solves if s.hinted]
    solved, hinted_solved = sum(s.solved for s in blind), sum(s.solved for s in hinted)
    ok = (len(blind) >= FRONTIER_MIN_BLIND and solved <= FRONTIER_MAX_BLIND_SOLVED
          and len(hinted) >= FRONTIER_MIN_HINTED and hinted_solved >= FRONTIER_MIN_HINTED_SOLVED)
    return ok, (f"blind: {solved} of {len(blind)} solved (need >= {FRONTIER_MIN_BLIND} solves, at most "
                f"{FRONTIER_MAX_BLIND_SOLVED} solved); hinted: {hinted_solved} of {len(hinted)} solved (need >= "
                f"{FRONTIER_MIN_HINTED} solves, at least {FRONTIER_MIN_HINTED_SOLVED} solved)")



def blind_jobs(case: Case, sandbox) -> list[tuple]:
    """``validate``'s jobs: one re-verification per recorded solve, and the tier's rule on the solves."""
    return [(check_blind_solve, (case, folder, sandbox)) for folder in solve_dirs(case)] + [(check_blind_rule, (case,))]


BINARY_LINE = re.compile(r"^Binary or large file (.+) differs$")


def reapplicable_diff(text: str) -> tuple[str, list[str]]:
    """The recorded diff without what cannot be applied again: a run's binary artifacts are recorded only as
    "Binary or large file P differs", so every section in a folder holding such a file is left out (a
    half-restored cache folder is neither the agent's final tree nor the case's). Returns the folders left out."""
    lines = text.splitlines(keepends=True)
    binary_dirs = sorted({posixpath.dirname(m.group(1))
                          for m in map(BINARY_LINE.match, (x.rstrip("\n") for x in lines)) if m})
    out, keep = [], True
    for line in lines:
        if BINARY_LINE.match(line.rstrip("\n")):
            keep = False
            continue
        if line.startswith("diff --git "):
            path = line.split(" b/", 1)[-1].strip()
            keep = not any(path.startswith(d + "/") for d in binary_dirs if d)
        if keep:
            out.append(line)
    return "".join(out), binary_dirs


def check_blind_solve(case: Case, folder: Path, sandbox):
    """The verifier's verdict on a recorded solve's diff is still the recorded one."""
    import tempfile

    from harness.validation.checks import check_patch_verdict

    solve = load_record(folder / SOLVE_FILE, BlindSolve)
    expect = "accept" if solve.fix_verified == "pass" else "reject"
    text, left_out = reapplicable_diff((folder / "diff.patch").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="mldb-blind-") as tmp:
        patch = Path(tmp) / "diff.patch"
        patch.write_text(text, encoding="utf-8")
        chk = check_patch_verdict(case, f"blind_solve_reverified:{folder.name}", patch, expect, sandbox)
    note = f"; left out the binary artifacts' folders {left_out}" if left_out else ""
    return chk.model_copy(update={"detail": f"recorded fix_verified {solve.fix_verified}{note}; {chk.detail}"})


def check_blind_rule(case: Case):
    """A frontier case meets its entry rule; on the other tiers, how many solves are recorded (2 is the aim)."""
    from harness.validation.checks import Check

    solves = [s for _, s in load_solves(case)]
    if case.tier == "frontier":
        ok, why = frontier_entry(solves)
        return Check(case_id=case.id, name="frontier_entry", passed=ok, detail=why)
    blind = [s for s in solves if not s.hinted]
    return Check(case_id=case.id, name="blind_solves_recorded", passed=True,
                 detail=f"{len(blind)} blind solve(s) recorded, {sum(s.solved for s in blind)} solved "
                        "(root cause and fix); 2 per case are the aim on this tier",
                 measured={"blind": len(blind), "solved": sum(s.solved for s in blind)})
