"""`report`'s compact tables: one mark per verdict, fit 100 columns, ASCII when the encoding needs it; --why."""

from __future__ import annotations

from typer.testing import CliRunner

from harness.analysis.compact import ASCII_MARKS, UNICODE_MARKS, marks_for, samples_lines, summary_lines
from harness.cli import app
from harness.core.results import append_sample, read_samples
from harness.models import Verdict
from tests.builders.run_fixtures import cases, make_run

P, F, U = "pass", "fail", "unscored"


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def big_run(tmp_path):
    """Ten standard and ten hard cases, two arms, two epochs: the shape of a real A/B run."""
    ids = cases(10) + [f"hard_{c}" for c in cases(10)]
    arms = {"control": {c: [(U, P), (U, F)] for c in ids}, "skill": {c: [(P, P), (F, U)] for c in ids}}
    return make_run(tmp_path, "ab", arms, agent="anthropic:claude-sonnet-4-20250514")


def test_tables_fit_100_columns_without_cutting_a_cell(tmp_path):
    samples = read_samples(big_run(tmp_path))
    lines = samples_lines(samples, 100, "utf-8") + summary_lines(samples, 100, "utf-8")
    assert max(len(line) for line in lines) <= 100
    assert not any("…" in line for line in lines)
    assert sum(1 for line in lines if line.startswith(("case_", "hard_case_"))) == 20  # case named once per group
    assert any("✓" in line and "✗" in line and "?" in line for line in lines)
    assert any(line.startswith("✓ pass") for line in lines)  # the legend


def test_summary_has_criteria_in_rows_and_condition_by_tier_in_columns(tmp_path):
    lines = summary_lines(read_samples(big_run(tmp_path)), 200, "utf-8")
    head = lines[0].split("  ")
    assert lines[0].startswith("criterion") and all(f"{c} · {t}" in lines[0] for c in ("control", "skill")
                                                    for t in ("standard", "hard"))
    assert len([h for h in head if h.strip()]) == 5
    assert any(line.startswith("root_cause ") and "?20" in line for line in lines)  # control: unscored, counted
    assert any(line.startswith("solved ") for line in lines)


def test_narrow_width_splits_columns_into_blocks_never_cuts(tmp_path):
    samples = read_samples(big_run(tmp_path))
    lines = summary_lines(samples, 60, "utf-8")
    assert max(len(line) for line in lines) <= 60
    assert sum(line.startswith("criterion") for line in lines) == 4  # one block per arm × tier, key repeated


def test_ascii_fallback_when_the_encoding_cannot_encode_the_marks(tmp_path):
    assert marks_for("utf-8") is UNICODE_MARKS
    assert marks_for("ascii") is ASCII_MARKS and marks_for("latin-1") is ASCII_MARKS
    assert marks_for("no-such-codec") is ASCII_MARKS
    text = "\n".join(samples_lines(read_samples(big_run(tmp_path)), 100, "ascii"))
    text.encode("ascii")
    assert "+ pass  x fail  - n/a" in text


def test_report_command_compact_and_wide(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    run = big_run(tmp_path)
    res = invoke("report", run)
    assert res.exit_code == 0, res.output
    assert "not judged" in res.output and "rc=root_cause" in res.output
    assert max(len(line) for line in res.output.splitlines()) <= 100
    wide = invoke("report", run, "--wide")
    assert wide.exit_code == 0 and "discriminating_test" in wide.output and "not judged" in wide.output


def test_why_prints_each_failing_check_with_the_verifiers_first_failure(tmp_path):
    run = make_run(tmp_path, "r", {"control": {"case_01": [(P, P)], "case_02": [(P, P)]}})
    sample = read_samples(run)[0]
    checks = [{"name": "loss_drops", "passed": True, "seed": 0},
              {"name": "val_acc_above", "passed": False, "seed": 1, "reason": "0.41 < 0.80"}]
    sample.verdicts["fix_verified"] = Verdict(criterion="fix_verified", status="fail", reason="val_acc_above (seed 1)",
                                              grader="deterministic:verifier",
                                              details={"status": "fail", "result": {"checks": checks}})
    sample.verdicts["location_match"] = Verdict(criterion="location_match", status="fail", grader="deterministic",
                                                reason="no reported span overlaps the key\x1b[2J")
    (run / "samples.jsonl").unlink()
    append_sample(run, sample.model_copy(update={"epoch": 0}))
    res = invoke("report", run, "--why", "case_01")
    assert res.exit_code == 0, res.output
    assert "fix_verified [control/epoch 0]: val_acc_above (seed 1)" in res.output
    assert "first failing verifier check: val_acc_above (seed 1): 0.41 < 0.80" in res.output
    assert "location_match [control/epoch 0]: no reported span overlaps the key\\x1b[2J" in res.output
    assert "\x1b" not in res.output  # an escape sequence from the agent is shown, not sent to the terminal
    missing = invoke("report", run, "--why", "case_07")
    assert missing.exit_code == 2 and "no sample of that case" in missing.output


def test_report_in_a_real_100_column_terminal_wraps_no_line(tmp_path):
    """The whole `report` output (tables, legend, costs) in a pseudo-terminal of 100 columns (util-linux
    `script`), as a user in such a terminal sees it: no line over 100 characters once colours are stripped."""
    import os
    import re
    import shlex
    import shutil
    import subprocess
    import sys

    import pytest

    if not shutil.which("script"):
        pytest.skip("util-linux `script` (a pseudo-terminal) is not installed")
    run = big_run(tmp_path)
    inner = f"stty cols 100 rows 50; {shlex.quote(sys.executable)} -m harness.cli report {shlex.quote(str(run))}"
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")} | {"TERM": "xterm-256color"}
    out = subprocess.run(["script", "-qec", inner, "/dev/null"], capture_output=True, env=env, timeout=120)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07", "", out.stdout.decode("utf-8", "replace"))
    lines = [line.rstrip("\r") for line in text.split("\n")]
    assert out.returncode == 0, text[-2000:]
    assert any(line.startswith("case_") for line in lines) and any("✓" in line for line in lines)
    assert max(len(line) for line in lines) <= 100, max(lines, key=len)
