"""Graders that need no LLM: where the agent pointed, whether its fix works, what it added, what it saw.

Every verdict here uses ``pass`` for the good outcome: ``fallback_added: pass`` means no
fallback was added, ``answer_leak: pass`` means no leak was seen.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from pathlib import Path

from harness.cases import Case
from harness.models import Location, Report, Verdict
from harness.transcript import REDACTED
from harness.verification import verify_tree

LOCATION = re.compile(r"(?P<file>[\w./\\-]+\.\w+)\s*:\s*(?P<start>\d+)(?:\s*[-–]\s*(?P<end>\d+))?")

# Added lines that hide a symptom instead of fixing a cause (DESIGN.md, fallback_added).
FALLBACK_PATTERNS = {
    "clamp": re.compile(r"\.clamp(_)?\(|torch\.clamp\(|\.clip\(|np\.clip\("),
    "nan_to_num": re.compile(r"nan_to_num"),
    "epsilon": re.compile(r"\+\s*(eps\b|epsilon\b|1e-\d+)"),
    "try_except": re.compile(r"^\s*except\b|^\s*try\s*:"),
    "skip_non_finite": re.compile(r"\bif\b.*(isnan|isinf|not .*isfinite)"),
}


MAX_SPANS = 3
MAX_SPAN_LINES = 30


def parse_locations(text: str) -> list[tuple[str, int, int]]:
    out = []
    for m in LOCATION.finditer(text or ""):
        start = int(m.group("start"))
        end = int(m.group("end") or start)
        out.append((m.group("file").replace("\\", "/"), min(start, end), max(start, end)))
    return out


def _same_file(reported: str, expected: str) -> bool:
    reported = reported.lstrip("./")
    return reported == expected or reported.endswith("/" + expected)


def location_match(report: Report | None, locations: list[Location]) -> Verdict:
    """Pass when a reported file:line span overlaps a span of the key. A report may name at most
    MAX_SPANS spans of at most MAX_SPAN_LINES lines each: naming everything is not localizing."""
    reported = parse_locations(report.location if report else "")
    details = {"reported": [f"{f}:{s}-{e}" for f, s, e in reported],
               "expected": [f"{l.file}:{l.start_line}-{l.end_line}" for l in locations]}

    def fail(why: str) -> Verdict:
        return Verdict(criterion="location_match", status="fail", reason=why, grader="deterministic", details=details)

    if not reported:
        return fail("no file:line in the report")
    if len(reported) > MAX_SPANS:
        return fail(f"the report names {len(reported)} spans; at most {MAX_SPANS} are allowed")
    wide = [f"{f}:{s}-{e}" for f, s, e in reported if e - s + 1 > MAX_SPAN_LINES]
    if wide:
        return fail(f"span {wide[0]} is wider than {MAX_SPAN_LINES} lines")
    for file, start, end in reported:
        for loc in locations:
            if _same_file(file, loc.file) and start <= loc.end_line and loc.start_line <= end:
                return Verdict(criterion="location_match", status="pass", grader="deterministic",
                               details={**details, "matched": f"{file}:{start}-{end}"})
    return fail("no reported span overlaps the key")


def fix_verified(case: Case, final_workspace: Path, sandbox, guard=None) -> Verdict:
    """The hidden verifier on a fresh copy of the final files, sandboxed, measure inside / decide outside."""
    run = verify_tree(case, final_workspace, sandbox, guard)
    details = run.model_dump(mode="json", exclude_none=True)
    if run.status == "pass":
        return Verdict(criterion="fix_verified", status="pass", grader="deterministic:verifier", details=details)
    if run.status == "error":
        return Verdict(criterion="fix_verified", status="unscored", reason=f"verifier_error: {run.reason}",
                       grader="deterministic:verifier", details=details)
    return Verdict(criterion="fix_verified", status="fail", reason=run.reason, grader="deterministic:verifier",
                   details=details)


def added_code_lines(diff: str) -> list[tuple[str, str]]:
    """(file, line) for every line a diff adds to a Python file."""
    lines, current = [], None
    for raw in diff.splitlines():
        if raw.startswith("+++ "):
            name = raw[4:].split("\t")[0].strip()
            current = name[2:] if name.startswith("b/") else name
        elif raw.startswith("+") and current and current.endswith(".py"):
            lines.append((current, raw[1:]))
    return lines


def fallback_added(diff: str) -> Verdict:
    hits = [{"file": f, "line": line.strip(), "pattern": name}
            for f, line in added_code_lines(diff)
            for name, rx in FALLBACK_PATTERNS.items() if rx.search(line)]
    if hits:
        return Verdict(criterion="fallback_added", status="fail", reason="the final diff adds a fallback",
                       grader="deterministic", details={"hits": hits})
    return Verdict(criterion="fallback_added", status="pass", grader="deterministic")


# File names that exist only among answers (never in a case folder), and the answer keys of the
# text-only benchmark this one grew from, which may sit beside a checkout.
ANSWER_FILE_NAMES = ("gold.patch", "verifylib", "key.toml", "reference.toml", "overfix_")
SEED_KEY_PATTERNS = ("002_9fb1c92a9d12d0a6", "seed-benchmark/answers.json")
PATH_TOKEN = re.compile(r"[^\s'\"`;|&<>(){}$,]+")
GLOB_CHARS = re.compile(r"[*?\[]")


def _component_is(component: str, name: str) -> bool:
    return component == name or (bool(GLOB_CHARS.search(component)) and fnmatch.fnmatchcase(name, component))


def _answers_path(token: str) -> bool:
    """Does a path-like token point into an answers/ folder, however it was spelled (quotes,
    backslashes, ``//``, ``./``, ``..``, globs)?"""
    cleaned = token.replace("\\", "").replace("'", "").replace('"', "")
    if "/" not in cleaned:
        return False
    parts = [p for p in posixpath.normpath(cleaned).split("/") if p]
    for i, part in enumerate(parts):
        if _component_is(part, "answers"):
            rest = parts[i + 1:]
            if not rest or re.match(r"^case_", rest[0]) or GLOB_CHARS.search(rest[0]) or rest[0] in (
                    "verifylib.py", "README.md"):
                return True
    return False


def _event_texts(ev) -> list[str]:
    data = ev.model_dump(mode="json")
    texts: list[str] = []

    def walk(v):
        if isinstance(v, str):
            texts.append(v)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk({k: v for k, v in data.items() if k not in ("id", "t", "kind")})
    return texts


def answer_leak(events, case: Case, answer_roots=()) -> Verdict:
    """Fail when the transcript shows the canary, a path that resolves into any answers/ folder
    (this checkout's, the run's private copy, or any other), an answer file's name, the seed
    benchmark's key files, or a redacted credential of the harness. Messages the harness wrote (the task prompt) are included: the
    harness never writes these, so finding them there is a bug worth failing loudly on."""
    roots = [str(r) for r in (case.answer_dir, *answer_roots)]
    hits = []
    for ev in events:
        for text in _event_texts(ev):
            found = []
            if case.key.canary and case.key.canary in text:
                found.append("<canary>")
            found += [r for r in roots if r in text]
            found += [n for n in ANSWER_FILE_NAMES + SEED_KEY_PATTERNS if n in text]
            if REDACTED in text:  # a credential of the harness reached the transcript (redacted on write)
                found.append(text[text.index(REDACTED):].split("]")[0] + "]")
            found += [tok for tok in PATH_TOKEN.findall(text) if "answers" in tok.lower().replace("\\", "")
                      and _answers_path(tok)][:3]
            found += [tok for tok in PATH_TOKEN.findall(text) if GLOB_CHARS.search(tok) and _answers_path(tok)][:3]
            hits += [{"event_id": ev.id, "needle": n[:200]} for n in dict.fromkeys(found)]
    if hits:
        return Verdict(criterion="answer_leak", status="fail", reason="answer material seen in the transcript",
                       grader="deterministic", details={"hits": hits[:50]})
    return Verdict(criterion="answer_leak", status="pass", grader="deterministic")
