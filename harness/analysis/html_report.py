"""One self-contained HTML file per report: tables plus matplotlib charts inlined as SVG.

Nothing is fetched when the file opens (no scripts, no fonts, no images by URL): matplotlib
draws text as paths, so the file looks the same from disk on any machine. Every string from a
run (agent names, case ids, conditions) is HTML-escaped.
"""

from __future__ import annotations

import html
import io
from pathlib import Path

from harness.analysis.report import REPORTED

RUN_HTML = "report.html"  # every run writes its page under this name into its folder

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; }
th { background: #f0f0f0; }
figure { margin: 1em 0; }
figcaption, .note { color: #555; font-size: 0.9em; }
"""


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    text = buf.getvalue()
    return text[text.index("<svg"):]  # drop the XML prolog and doctype: inline SVG needs neither


def _figure(width: float, height: float):
    import matplotlib

    matplotlib.rcParams["svg.fonttype"] = "path"
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height))


def heatmap_svg(matrix: list[list[float | None]], row_labels: list[str], col_labels: list[str], title: str) -> str:
    """Pass rates in [0, 1] per cell; None (nothing scored) is grey and labelled '–'."""
    import numpy as np
    from matplotlib import colormaps

    data = np.ma.masked_invalid(np.array([[np.nan if v is None else v for v in row] for row in matrix], dtype=float))
    fig = _figure(max(4.0, 0.9 * len(col_labels) + 2.5), max(1.8, 0.38 * len(row_labels) + 1.4))
    ax = fig.add_subplot()
    cmap = colormaps["RdYlGn"].with_extremes(bad="#d0d0d0")
    im = ax.imshow(data, cmap=cmap, vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(col_labels)), col_labels, rotation=40, ha="right")
    ax.set_yticks(range(len(row_labels)), row_labels)
    for i, row in enumerate(matrix):
        for j, v in enumerate(row):
            ax.text(j, i, "–" if v is None else f"{v:.2f}", ha="center", va="center", fontsize=8)
    ax.set_title(title, fontsize=10)
    fig.colorbar(im, ax=ax, fraction=0.03, label="pass rate")
    return _svg(fig)


def forest_svg(labels: list[str], diffs: list[float | None], lows: list[float | None], highs: list[float | None],
               mdes: list[float | None], title: str) -> str:
    """Differences with 95% intervals; the grey band on each row is ±MDE (80% power)."""
    fig = _figure(6.5, 0.45 * len(labels) + 1.4)
    ax = fig.add_subplot()
    ys = list(range(len(labels)))[::-1]
    for y, d, lo, hi, m in zip(ys, diffs, lows, highs, mdes):
        if m is not None:
            ax.fill_betweenx([y - 0.35, y + 0.35], -m, m, color="#bbbbbb", alpha=0.5, linewidth=0)
        if d is None:
            continue
        if lo is not None:
            ax.plot([lo, hi], [y, y], color="#1f4e79", linewidth=2)
        ax.plot([d], [y], "o", color="#1f4e79")
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(ys, labels)
    ax.set_xlim(-1.05, 1.05)
    ax.set_xlabel("candidate − baseline (95% CI); grey band: ± MDE at 80% power")
    ax.set_title(title, fontsize=10)
    return _svg(fig)


def _page(title: str, body: list[str]) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
            f"<h1>{html.escape(title)}</h1>\n" + "\n".join(body) + "\n</body></html>\n")


def _table(df, caption: str = "") -> str:
    cap = f"<p class=\"note\">{html.escape(caption)}</p>" if caption else ""
    return cap + df.to_html(index=False, escape=True, na_rep="", border=0)


def _fig(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{html.escape(caption)}</figcaption></figure>"


def _run_heatmap(samples) -> str:
    from harness.analysis.report import samples_frame

    df = samples_frame(samples)
    rows, labels = [], []
    for (cond, case), sub in df.groupby(["condition", "case"]):
        cells = []
        for c in REPORTED:
            scored = sub[c].isin(["pass", "fail"])
            cells.append(float((sub[c][scored] == "pass").mean()) if scored.any() else None)
        rows.append(cells)
        labels.append(f"{case} · {cond}")
    return heatmap_svg(rows, labels, list(REPORTED), "pass rate per case × criterion (grey: nothing scored)")


def comparison_section(comp, ks=()) -> list[str]:
    from harness.analysis.compare import comparison_table

    rows = comp.rows
    labels = [r.criterion if len(comp.tiers) == 1 else f"{r.criterion} ({r.tier})" for r in rows]
    svg = forest_svg(labels, [r.diff.diff for r in rows], [r.diff.low for r in rows],
                     [r.diff.high for r in rows], [r.diff.mde for r in rows],
                     f"{comp.candidate} − {comp.baseline}")
    return ["<h2>Comparison</h2>",
            _table(comparison_table(comp, list(ks)), f"candidate {comp.candidate} − baseline {comp.baseline}, paired "
                                                     f"over {len(comp.cases)} cases"),
            _fig(svg, "forest plot: each criterion's difference with its 95% interval; a difference inside the grey "
                      "band is smaller than this design can reliably detect")]


def run_html(run_dir: Path) -> str:
    from harness.analysis.compare import compare, load_arms
    from harness.analysis.report import display_table, summary_table
    from harness.core.results import read_manifest, read_samples

    manifest = read_manifest(run_dir)
    samples = read_samples(run_dir)
    from harness.core.cases import tiers_of

    body = [f"<p class=\"note\">agent {html.escape(manifest.agent)}, tier "
            f"{html.escape(', '.join(tiers_of(manifest.case_ids)))} (tiers are summarised apart), conditions "
            f"{html.escape(', '.join(manifest.conditions))}, {len(manifest.case_ids)} cases × {manifest.epochs} "
            f"epoch(s), harness {html.escape(manifest.harness_version)}, "
            f"created {html.escape(manifest.created_at)}</p>",
            "<h2>Summary</h2>",
            _table(summary_table(samples), "pass/scored, score = mean over cases [95% CI]; unscored never counts"),
            "<h2>Per case × criterion</h2>", _fig(_run_heatmap(samples), "pass rate over scored samples")]
    if len(manifest.conditions) == 2:
        a, b = load_arms([run_dir])
        body += comparison_section(compare(a, b))
    body += ["<h2>Samples</h2>", _table(display_table(samples))]
    return _page(f"ml-debug-bench run {manifest.run_id}", body)


def comparison_html(a, b, comp, ks=()) -> str:
    body = comparison_section(comp, ks)
    body += ["<h2>Per case × criterion</h2>", _fig(_run_heatmap(a.samples + b.samples) if a.run_dir == b.run_dir
                                                   else _run_heatmap(_relabel(a) + _relabel(b)),
                                                   "pass rate over scored samples")]
    return _page("ml-debug-bench comparison", body)


def _relabel(arm):
    """Samples of an arm with the condition renamed to the run, so two runs' 'control' stay apart."""
    return [s.model_copy(update={"condition": f"{arm.manifest.run_id}/{arm.condition}"}) for s in arm.samples]


def leaderboard_html(board) -> str:
    from harness.analysis.leaderboard import items_frame, rows_frame

    rows = rows_frame(board, wide=True)
    items = items_frame(board)
    body = [f"<p class=\"note\">score = mean over cases of the per-case pass rate [95% CI]; item analysis on "
            f"{html.escape(board.item_criterion)}</p>"]
    for cs in board.case_sets:
        body.append(f"<h2>Case set {html.escape(cs.fingerprint)}, {html.escape(cs.tier)} tier</h2>")
        body.append(_table(rows[rows["case_set"] == cs.fingerprint].drop(columns=["case_set"])))
        matrix = [[r.case_rates.get(c) for c in cs.cases] for r in cs.rows]
        labels = [f"{r.agent} · {r.condition}" for r in cs.rows]
        body.append(_fig(heatmap_svg(matrix, labels, cs.cases, f"{board.item_criterion}: pass rate per row × case"),
                         "grey: nothing scored"))
        body.append("<h3>Item analysis</h3>")
        body.append(_table(items[items["case_set"] == cs.fingerprint].drop(columns=["case_set"]).round(3),
                           "difficulty = mean pass rate over rows; discrimination = correlation of the case with "
                           "each row's score on the other cases"))
    return _page("ml-debug-bench leaderboard", body)
