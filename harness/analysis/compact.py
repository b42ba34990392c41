"""The tables ``report`` prints for a person: one character per verdict, criteria as short column codes,
so a run fits 100 columns without rich squeezing cells into ``ca…``.

Plain text, laid out here (no rich): every line is at most the width asked for. A table whose columns do not
fit is split into blocks of columns that do, each repeating the key columns, never cut. ``--wide`` prints
the full labels instead (``harness.analysis.report.display_table``).
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.analysis.report import REPORTED, SOLVED, criterion_counts, criterion_score, samples_frame, status_of
from harness.core.cases import tier_of
from harness.models import SampleResult

UNICODE_MARKS = {"pass": "✓", "fail": "✗", "not_applicable": "·", "unscored": "?"}
ASCII_MARKS = {"pass": "+", "fail": "x", "not_applicable": "-", "unscored": "?"}
# column codes, in REPORTED order; the legend spells each out
CODES = {"root_cause": "rc", "discriminating_test": "dt", "localization": "loc", "unsupported_change": "uc",
         "location_match": "lm", "fix_verified": "fix", "fallback_added": "fb", "tampering": "tam",
         "answer_leak": "leak", SOLVED: "sol"}


def marks_for(encoding: str | None) -> dict[str, str]:
    """The unicode marks when ``encoding`` can encode them, else the ASCII ones (a latin-1 or C-locale pipe)."""
    try:
        "".join(UNICODE_MARKS.values()).encode(encoding or "ascii")
        return UNICODE_MARKS
    except (UnicodeEncodeError, LookupError):
        return ASCII_MARKS


def code_of(criterion: str) -> str:
    return CODES.get(criterion, criterion[:4])


@dataclass
class Column:
    header: str
    cells: list[str]
    align: str = "left"  # left | right | center
    key: bool = False  # repeated in every block when the table is split

    @property
    def width(self) -> int:
        return max([len(self.header)] + [len(c) for c in self.cells])

    def fmt(self, text: str) -> str:
        w = self.width
        return text.rjust(w) if self.align == "right" else text.center(w) if self.align == "center" else text.ljust(w)


def _block_lines(columns: list[Column], n_rows: int, breaks: set[int]) -> list[str]:
    lines = [" ".join(c.fmt(c.header) for c in columns).rstrip(),
             " ".join("-" * c.width for c in columns)]
    for i in range(n_rows):
        if i in breaks:
            lines.append("")
        lines.append(" ".join(c.fmt(c.cells[i]) for c in columns).rstrip())
    return lines


def render(columns: list[Column], width: int, breaks: set[int] = frozenset()) -> list[str]:
    """The table's lines, at most ``width`` characters each where the key columns plus any one other column fit.

    ``breaks``: row indexes preceded by a blank line (a new group)."""
    n_rows = len(columns[0].cells) if columns else 0
    keys = [c for c in columns if c.key]
    rest = [c for c in columns if not c.key]
    key_width = sum(c.width + 1 for c in keys)
    blocks, current, used = [], [], key_width
    for col in rest:
        if current and used + col.width > width:
            blocks.append(current)
            current, used = [], key_width
        current.append(col)
        used += col.width + 1
    blocks.append(current)
    lines: list[str] = []
    for i, block in enumerate(blocks):
        if i:
            lines.append("")
        lines += _block_lines(keys + block, n_rows, breaks)
    return lines


def wrap_words(parts: list[str], width: int, sep: str = "  ") -> list[str]:
    """Join ``parts`` into lines of at most ``width`` characters (a part longer than the width stands alone)."""
    lines, line = [], ""
    for part in parts:
        candidate = f"{line}{sep}{part}" if line else part
        if line and len(candidate) > width:
            lines.append(line)
            line = part
        else:
            line = candidate
    if line:
        lines.append(line)
    return lines


def _money(v: float | None) -> str:
    if v is None:
        return "?"
    return f"{v:.2f}" if v >= 10 else f"{v:.4f}"


def sample_columns(samples: list[SampleResult], marks: dict[str, str]) -> tuple[list[Column], set[int]]:
    """One row per sample, grouped by case (the case named on its first row), one verdict mark per criterion."""
    ordered = sorted(samples, key=lambda s: (s.case_id, s.condition, s.epoch))
    cols = {name: [] for name in ("case", "arm", "ep", "status", *REPORTED, "cost$", "time_s")}
    breaks, previous = set(), None
    for i, s in enumerate(ordered):
        if s.case_id != previous and previous is not None:
            breaks.add(i)
        cols["case"].append(s.case_id if s.case_id != previous else "")
        previous = s.case_id
        cols["arm"].append(s.condition)
        cols["ep"].append(str(s.epoch))
        cols["status"].append(s.status)
        for c in REPORTED:
            cols[c].append(marks[status_of(s, c) or "unscored"])
        cols["cost$"].append(_money(s.usage.cost_usd) if s.usage.cost_usd is not None or s.usage.input_tokens else "")
        cols["time_s"].append(f"{s.duration_s:.0f}")
    columns = [Column("case", cols["case"], key=True), Column("arm", cols["arm"], key=True),
               Column("ep", cols["ep"], "right", key=True), Column("status", cols["status"])]
    columns += [Column(code_of(c), cols[c], "center") for c in REPORTED]
    if any(cols["cost$"]):
        columns.append(Column("cost$", cols["cost$"], "right"))
    columns.append(Column("time_s", cols["time_s"], "right"))
    return columns, breaks


def unscored_reasons(samples: list[SampleResult]) -> dict[str, int]:
    """How many verdicts are unscored for each reason (the reason's head, before any ':'), most common first."""
    counts: dict[str, int] = {}
    for s in samples:
        for v in s.verdicts.values():
            if v.status == "unscored":
                head = "not judged" if v.reason == "not_judged" else (v.reason or "no reason").split(":")[0]
                counts[head] = counts.get(head, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def legend(samples: list[SampleResult], marks: dict[str, str], width: int) -> list[str]:
    """What each mark and column code means, and why the unscored cells are unscored (e.g. no judge ran)."""
    reasons = unscored_reasons(samples)
    unscored = f"{marks['unscored']} unscored" + (
        " (" + ", ".join(f"{n} {why}" for why, n in reasons.items()) + ")" if reasons else "")
    parts = [f"{marks['pass']} pass", f"{marks['fail']} fail", f"{marks['not_applicable']} n/a", unscored]
    parts += [f"{code_of(c)}={c}" for c in REPORTED if c != SOLVED]
    parts.append(f"{code_of(SOLVED)}={SOLVED} (root_cause and fix_verified)")
    return wrap_words(parts, width)


def samples_lines(samples: list[SampleResult], width: int, encoding: str | None) -> list[str]:
    marks = marks_for(encoding)
    columns, breaks = sample_columns(samples, marks)
    return render(columns, width, breaks) + [""] + legend(samples, marks, width)


def _score_cell(r, score) -> str:
    text = f"{r['pass']}/{r['scored']}"
    if score.mean is not None and score.low is not None:
        text += f" {score.mean:.2f} [{score.low:.2f},{score.high:.2f}]"
    if r["unscored"]:
        text += f" ?{r['unscored']}"
    if r["not_applicable"]:
        text += f" n/a{r['not_applicable']}"
    return text


def summary_columns(samples: list[SampleResult]) -> list[Column]:
    """Criteria in rows; one column per condition × tier: 'pass/scored mean [95% CI]' and the unscored count."""
    df = samples_frame(samples)
    counts = criterion_counts(samples)
    columns = [Column("criterion", list(REPORTED), key=True)]
    if counts.empty:
        return columns
    for (cond, tier), sub in counts.groupby(["condition", "tier"]):
        arm = df[(df["condition"] == cond) & (df["tier"] == tier)]
        by_criterion = {r["criterion"]: r for _, r in sub.iterrows()}
        cells = [_score_cell(by_criterion[c], criterion_score(arm, c)) for c in REPORTED]
        n, errored = int(sub["n"].iloc[0]), int(sub["errored"].iloc[0])
        cells.append(f"{n}" + (f" ({errored} errored)" if errored else ""))
        columns.append(Column(f"{cond} · {tier}", cells))
    columns[0].cells = columns[0].cells + ["samples"]
    return columns


def summary_lines(samples: list[SampleResult], width: int, encoding: str | None) -> list[str]:
    columns = summary_columns(samples)
    if marks_for(encoding) is ASCII_MARKS:
        for c in columns:
            c.header = c.header.replace(" · ", " / ")
    note = ("pass/scored, score = mean over cases of the per-case pass rate [95% CI]; ?N = N unscored, "
            "n/aN = N not applicable; neither counts as pass or fail.")
    return render(columns, width) + wrap_words(note.split(), width, sep=" ")


def tiers_label(samples: list[SampleResult]) -> str:
    return ", ".join(sorted({tier_of(s.case_id) for s in samples}))
