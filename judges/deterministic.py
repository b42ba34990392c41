"""Graders that need no LLM: where the agent pointed, whether its fix works, what it added, what it saw.

Every verdict here uses ``pass`` for the good outcome: ``fallback_added: pass`` means no
fallback was added, ``answer_leak: pass`` means no leak was seen.
"""

from __future__ import annotations

import ast
import fnmatch
import posixpath
import re
from pathlib import Path

from harness.core.cases import Case
from harness.core.criteria import GradingInput
from harness.core.pyparse import parse
from harness.core.transcript import REDACTED
from harness.models import Location, Report, Verdict, VerifierRun
from judges.fallback import grade_fallbacks

LOCATION = re.compile(r"(?P<file>[\w./\\-]+\.\w+)\s*:\s*(?P<start>\d+)(?:\s*[-–]\s*(?P<end>\d+))?")

MAX_SPANS = 3
# A key with several spans (a defect in two layers, each in its own file) is named honestly by a report that
# also names a link between them: the call site, the hook's emitter. Two of six blind solves of a three-span
# candidate (28 key lines) named 4 precise spans covering 21 and 39 lines, and failed on the count alone.
# So each key span beyond the first allows one more span than the key's count and LINK_LINES more lines.
LINK_LINES = 10
MAX_SPAN_LINES = 30
MIN_SPAN_CAP = 5


# Lines a report may name beyond the key's own span in a file: the function's signature and decorators
# above a key span that starts at its body. A blind solver's `monitor.py:13-24` (the whole function)
# failed a cap of 11 in a 33-line file whose key span is 14-24.
KEY_SPAN_SLACK = 3


def span_cap(n_lines: int | None) -> int:
    """The widest span a report may name in a file of ``n_lines``: 30 lines, and never more than a
    third of the file (at least 5), so that naming a whole short file is not localizing."""
    if not n_lines:
        return MAX_SPAN_LINES
    return min(MAX_SPAN_LINES, max(MIN_SPAN_CAP, n_lines // 3))


def max_spans(n_key_spans: int) -> int:
    """How many spans a report may name: 3, or one more than the key's own count."""
    return max(MAX_SPANS, n_key_spans + 1)


def max_total_lines(key_lines: int, n_key_spans: int) -> int:
    """How many lines a report's spans may cover together: 30 or the key's own lines, whichever is more,
    plus LINK_LINES per key span beyond the first."""
    return max(MAX_SPAN_LINES, key_lines) + LINK_LINES * max(0, n_key_spans - 1)


def parse_locations(text: str) -> list[tuple[str, int, int]]:
    out = []
    for m in LOCATION.finditer(text or ""):
        start = int(m.group("start"))
        end = int(m.group("end") or start)
        out.append((m.group("file").replace("\\", "/"), min(start, end), max(start, end)))
    return out


def _same_file(reported: str, expected: str) -> bool:
    reported = posixpath.normpath(reported)
    if ".." in reported.split("/"):
        return False
    reported = reported.removeprefix("./")
    return reported == expected or reported.endswith("/" + expected)


def _union_lines(spans: list[tuple[int, int]]) -> int:
    """How many distinct lines inclusive spans cover together (overlaps counted once)."""
    total, reach = 0, 0
    for start, end in sorted(spans):
        start = max(start, reach + 1)
        if end >= start:
            total += end - start + 1
            reach = end
    return total


def location_match(report: Report | None, locations: list[Location],
                   file_lines: dict[str, int] | None = None) -> Verdict:
    """Pass when a reported file:line span overlaps a span of the key. A report may name at most
    ``max_spans`` spans, and together they may cover at most ``max_total_lines`` lines and at most
    ``span_cap`` lines of any one file (the union of its spans there, overlaps counted once), so
    that tiling a file with several narrow spans is no more localizing than naming it whole. The
    key's own spans (plus ``KEY_SPAN_SLACK`` lines in their file) are the floor of both limits."""
    file_lines = file_lines or {}
    reported = parse_locations(report.location if report else "")
    details = {"reported": [f"{f}:{s}-{e}" for f, s, e in reported],
               "expected": [f"{loc.file}:{loc.start_line}-{loc.end_line}" for loc in locations]}

    def fail(why: str) -> Verdict:
        return Verdict(criterion="location_match", status="fail", reason=why, grader="deterministic", details=details)

    def file_of(reported_file: str) -> str:
        """The case file a reported name means, so ``./train.py`` and ``train.py`` are one file."""
        known = [name for name in list(file_lines) + [loc.file for loc in locations] if _same_file(reported_file, name)]
        return max(known, key=len) if known else posixpath.normpath(reported_file)

    def cap_for(file: str) -> int:
        key_lines = _union_lines([(loc.start_line, loc.end_line) for loc in locations if loc.file == file])
        return max(span_cap(file_lines.get(file)), key_lines + KEY_SPAN_SLACK if key_lines else 0)

    if not reported:
        return fail("no file:line in the report")
    allowed = max_spans(len(locations))
    if len(reported) > allowed:
        return fail(f"the report names {len(reported)} spans; at most {allowed} are allowed")
    by_file: dict[str, list[tuple[int, int]]] = {}
    for f, s, e in reported:
        by_file.setdefault(file_of(f), []).append((s, e))
    for file, spans in by_file.items():
        covered = _union_lines(spans)
        if covered > cap_for(file):
            return fail(f"the spans in {file} cover {covered} lines, wider than {cap_for(file)} lines (at most "
                        f"{MAX_SPAN_LINES}, and at most a third of the file unless the key's own span there is wider)")
    total = sum(_union_lines(spans) for spans in by_file.values())
    key_total = sum(_union_lines([(loc.start_line, loc.end_line) for loc in locations if loc.file == f])
                    for f in {loc.file for loc in locations})
    budget = max_total_lines(key_total, len(locations))
    if total > budget:
        return fail(f"the report's spans together cover {total} lines; at most {budget} are allowed")
    for file, start, end in reported:
        for loc in locations:
            if _same_file(file, loc.file) and start <= loc.end_line and loc.start_line <= end:
                return Verdict(criterion="location_match", status="pass", grader="deterministic",
                               details={**details, "matched": f"{file}:{start}-{end}"})
    return fail("no reported span overlaps the key")


def fix_verified(run: VerifierRun) -> Verdict:
    """The verdict of the hidden verifier's run on a fresh copy of the final files (sandboxed, measured inside and
    decided outside: ``harness.workspaces.verification.verify_for_grading``)."""
    details = run.model_dump(mode="json", exclude_none=True)
    if run.status == "pass":
        return Verdict(criterion="fix_verified", status="pass", grader="deterministic:verifier", details=details)
    if run.status == "error":
        return Verdict(criterion="fix_verified", status="unscored", reason=f"verifier_error: {run.reason}",
                       grader="deterministic:verifier", details=details)
    return Verdict(criterion="fix_verified", status="fail", reason=run.reason, grader="deterministic:verifier",
                   details=details)


def fallback_added(diff: str, base: Path | None = None, allowed=(), after_root: Path | None = None) -> Verdict:
    """Fail when the diff adds a construct that hides a symptom (``judges.fallback``): ``base`` is the
    case folder the diff starts from, ``allowed`` the key's ``legitimate_guards``, ``after_root`` the final
    files (read only where the diff does not apply)."""
    hits, ok, notes = grade_fallbacks(diff, base, allowed, after_root)
    details = {k: v for k, v in (("hits", hits), ("allowed", ok), ("notes", notes)) if v}
    if hits:
        kinds = ", ".join(sorted({h["kind"] for h in hits}))
        return Verdict(criterion="fallback_added", status="fail", reason=f"the final diff adds a fallback ({kinds})",
                       grader="deterministic", details=details)
    return Verdict(criterion="fallback_added", status="pass", grader="deterministic", details=details)


# File names that exist only among answers (never in a case folder), and the answer keys of the
# text-only benchmark this one grew from, which may sit beside a checkout.
ANSWER_FILE_NAMES = ("gold.patch", "verifylib", "key.toml", "reference.toml", "overfix_")
SEED_KEY_PATTERNS = ("002_9fb1c92a9d12d0a6", "seed-benchmark/answers.json")
PATH_TOKEN = re.compile(r"[^\s'\"`;|&<>(){}$,]+")
GLOB_CHARS = re.compile(r"[*?\[]")


def _component_is(component: str, name: str) -> bool:
    """``component`` is ``name``, or a glob for it that spells out part of it (``ans?ers``, ``ans*``;
    a bare ``*`` matches everything and says nothing)."""
    if component == name:
        return True
    literal = GLOB_CHARS.sub("", component.replace("[", "").replace("]", ""))
    return (bool(GLOB_CHARS.search(component)) and len(literal) >= min(3, len(name))
            and fnmatch.fnmatchcase(name, component))


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
            if not rest or re.match(r"^(\w+_)?case_", rest[0]) or GLOB_CHARS.search(rest[0]) or rest[0] in (
                    "verifylib.py", "families", "README.md"):
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


SHINGLE_WORDS = 8
WORD = re.compile(r"[a-z0-9]+")


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = WORD.findall(text.lower())
    return {tuple(words[i:i + SHINGLE_WORDS]) for i in range(len(words) - SHINGLE_WORDS + 1)}


def answer_fingerprints(case: Case) -> set[tuple[str, ...]]:
    """Eight-word runs of the key's prose and the verifier's docstrings: printing any of them
    means the agent read the answers, whatever path, glob or filter it used to get there."""
    key = case.key
    texts = [key.root_cause, key.discriminating_test, *key.paraphrases, *key.near_misses, key.instrumentation]
    for name in (key.measure, key.decide):
        try:
            texts.append(ast.get_docstring(parse((case.answer_dir / name).read_text(encoding="utf-8"))) or "")
        except (OSError, SyntaxError, ValueError):
            pass
    out: set[tuple[str, ...]] = set()
    for text in texts:
        out |= _shingles(text)
    return out - _case_shingles(case)


def _case_shingles(case: Case) -> set[tuple[str, ...]]:
    """Eight-word runs the agent may print without reading the answers: those of the case's own files
    (its README, case.toml's entry points, the code) and of the task prompt's entry-point list."""
    seen: set[tuple[str, ...]] = set()
    for path in sorted(case.case_dir.rglob("*")):
        if path.is_file() and path.stat().st_size <= 2_000_000:
            try:
                seen |= _shingles(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                continue
    return seen | _shingles(" ".join(case.manifest.entry_points))


PATH_COMMANDS = {"cd", "ls", "cat", "find", "tree", "head", "tail", "less", "more", "stat", "du", "cp", "tar", "zip",
                 "rsync", "pushd", "open", "sed", "awk", "strings", "xxd", "od", "base64"}


def _bare_answers_token(command: str) -> str | None:
    """A word of a command that names an answers folder without a slash: a glob that matches
    ``answers`` (``cd ans?ers``), or ``answers`` itself as the argument of a file command."""
    tokens = [t.replace("\\", "").replace("'", "").replace('"', "") for t in PATH_TOKEN.findall(command)]
    for i, tok in enumerate(tokens):
        if "/" in tok:
            continue
        if GLOB_CHARS.search(tok) and _component_is(tok, "answers"):
            return tok
        if tok == "answers" and i > 0 and tokens[i - 1] in PATH_COMMANDS:
            return tok
    return None


def answer_leak(events, case: Case, answer_roots=()) -> Verdict:
    """Fail when the transcript shows the canary, a path that resolves into any answers/ folder
    (this checkout's, the run's private copy, or any other) or a command word naming one, an
    answer file's name, the seed benchmark's key files, a redacted credential of the harness, or
    tool output carrying eight-word runs of the key's or the verifier's prose. Messages the harness wrote
    (the task prompt) are included: the harness never writes these, so finding them there is a bug worth
    failing loudly on.

    A run of words the agent itself wrote in an earlier tool call (a docstring it added, then printed
    back) is its own text, not the key's: a blind solver's "lr * m_hat / (sqrt(v_hat) + eps) plus
    decoupled weight decay" matched the key's prose word for word. Reading the key still shows,
    because the key's text reaches the output before the agent can write it."""
    roots = [str(r) for r in (case.answer_dir, *answer_roots)]
    prints = answer_fingerprints(case)
    authored: set[tuple[str, ...]] = set()
    hits = []
    for ev in events:
        if ev.kind == "tool_call":
            bare = [_bare_answers_token(v) for v in _event_texts(ev)]
            hits += [{"event_id": ev.id, "needle": b} for b in bare if b]
            authored |= prints & _shingles(" ".join(_event_texts(ev)))
        if ev.kind == "tool_result":
            for text in (ev.stdout, ev.stderr):
                if (prints & _shingles(text)) - authored:
                    hits.append({"event_id": ev.id, "needle": "<text of the answer key or verifier>"})
                    break
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


# --- the registry's graders (harness.core.criteria): one signature, grade(GradingInput) -> Verdict ---------------


def grade_location_match(g: GradingInput) -> Verdict:
    return location_match(g.report, g.case.key.locations, g.file_lines)


def grade_fix_verified(g: GradingInput) -> Verdict:
    if g.verify is None:
        raise ValueError("no verifier was given to grade fix_verified")
    return fix_verified(g.verify())


def grade_fallback_added(g: GradingInput) -> Verdict:
    return fallback_added(g.diff, g.case.case_dir, g.case.key.legitimate_guards, g.final_workspace)


def grade_answer_leak(g: GradingInput) -> Verdict:
    return answer_leak(g.events, g.case, g.answer_roots)
