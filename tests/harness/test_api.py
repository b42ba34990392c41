"""The library entry point (harness.api): what the CLI calls, callable without it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness import api
from harness.core.errors import ConfigError, InputError
from harness.core.results import read_samples
from harness.models import RunOptions

ROOT = Path(__file__).resolve().parents[2]


def test_load_cases_by_id_and_tier():
    assert [c.id for c in api.load_cases(["case_01"])] == ["case_01"]
    assert {c.tier for c in api.load_cases(tier="hard")} == {"hard"}
    with pytest.raises(InputError, match="no such case"):
        api.load_cases(["case_99"])


def test_a_run_and_its_resume_without_the_cli(tmp_path):
    warnings = []
    run_dir = api.run(RunOptions(agent="null", cases=["case_01"]), tmp_path, warn=warnings.append)
    (sample,) = read_samples(run_dir)
    assert sample.status == "completed" and sample.verdicts["fix_verified"].status == "fail"
    assert api.resume_options(run_dir).agent == "null"
    assert api.resume(run_dir) == run_dir and len(read_samples(run_dir)) == 1  # nothing left to redo


def test_verify_and_validate_refuse_bad_arguments_before_running_anything(tmp_path):
    with pytest.raises(ConfigError, match="either a folder or --patch"):
        api.verify("case_01")
    with pytest.raises(ConfigError, match="not a folder"):
        api.verify("case_01", directory=tmp_path / "absent")
    with pytest.raises(ConfigError, match="--kernels-only needs --kernels"):
        api.validate(["case_01"], kernels_only=True)


def test_the_judge_input_cap_is_one_number_everywhere():
    from harness.cli.common import DEFAULT_JUDGE_INPUT_TOKENS
    from judges.rubric import DEFAULT_MAX_INPUT_TOKENS

    assert DEFAULT_JUDGE_INPUT_TOKENS == api.DEFAULT_JUDGE_INPUT_TOKENS == DEFAULT_MAX_INPUT_TOKENS


def test_importing_the_library_is_light():
    code = ("import sys, harness.api; heavy = ('pandas', 'torch', 'openai', 'anthropic', 'pydantic', 'judges'); "
            "print(' '.join(m for m in heavy if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.split() == []
