"""The HTML reports open from disk in a real Chromium (Debian's, driven by Playwright) with no network."""

import re
import shutil

import pytest
from typer.testing import CliRunner

from harness.cli import app
from tests.builders.run_fixtures import cases, make_run, pattern

P, F, U = "pass", "fail", "unscored"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture
def pages(tmp_path):
    control = {c: [(r, P)] for c, r in zip(cases(6), [P, F, P, F, U, F])}
    skill = {c: [(r, P)] for c, r in zip(cases(6), [P, P, P, F, P, F])}
    ab = make_run(tmp_path, "ab", {"control": control, "skill": skill}, agent="openai:<b>m</b>")
    other = make_run(tmp_path, "other", {"control": pattern([P, P, F, F, F, F])}, agent="cli:x")
    third = make_run(tmp_path, "third", {"control": pattern([P, F, F, P, F, F])}, agent="m3")
    run_html, board_html, comp_html = tmp_path / "run.html", tmp_path / "board.html", tmp_path / "comp.html"
    assert invoke("report", ab, "--html", run_html).exit_code == 0
    res = invoke("leaderboard", ab, other, third, "--out", tmp_path / "board", "--html", board_html)
    assert res.exit_code == 0, res.output
    assert invoke("compare", other, third, "--html", comp_html).exit_code == 0
    return {"run": run_html, "board": board_html, "comparison": comp_html}


def test_html_is_self_contained_and_escaped(pages):
    text = pages["run"].read_text()
    # XML namespace names (http://www.w3.org/...) are identifiers, never fetched; links and sources would be
    assert "<script" not in text and "@import" not in text
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:|//)|url\(\s*[\"']?(https?:|//)", text)
    assert "openai:&lt;b&gt;m&lt;/b&gt;" in text and "<b>m</b>" not in text
    assert text.count("<svg") == 2  # heatmap and forest plot


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium; "
                                             ".ci/setup.d/chromium.sh does it in CI)")
def test_reports_render_in_chromium(pages):
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            for name, path in pages.items():
                page = browser.new_page()
                problems, remote = [], []
                page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
                page.on("pageerror", lambda e: problems.append(str(e)))
                page.on("request", lambda r: remote.append(r.url) if not r.url.startswith(("file:", "data:")) else None)
                page.goto(path.as_uri())
                page.wait_for_load_state("load")
                tables = page.locator("table")
                assert tables.count() >= (1 if name == "comparison" else 2), name
                assert tables.first.locator("tr").count() >= 2, name
                charts = page.locator("figure svg")
                assert charts.count() >= 1, name
                for i in range(charts.count()):
                    box = charts.nth(i).bounding_box()
                    assert box and box["width"] > 100 and box["height"] > 50, (name, box)
                    assert charts.nth(i).locator("path").count() > 10, name  # drawn, not an empty frame
                assert problems == [] and remote == [], (name, problems, remote)
                if name == "run":
                    assert "openai:<b>m</b>" in page.inner_text("body")
                if name == "board":
                    assert "Item analysis" in page.inner_text("body") and "discrimination" in page.inner_text("body")
                page.close()
        finally:
            browser.close()
