"""Emulated Harbor trials of an exported task (harness.engines.harbor_trial): bubblewrap instead of Docker,
a venv built as the Dockerfile builds it. Each trial trains case_01 several times over (40-150 s, by load), over the
default suite's budget, so they run only with MLDB_HARBOR_TRIALS=1 (and the venv at MLDB_HARBOR_VENV, default
/work/venv_i26a_trial); bench/harbor_trials.py runs all four trials on every case."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.core.cases import load_case
from harness.engines.harbor_export import export_case
from harness.engines.harbor_trial import run_trial, trial_venv_problem

ROOT = Path(__file__).resolve().parents[3]
VENV = Path(os.environ.get("MLDB_HARBOR_VENV", "/work/venv_i26a_trial"))

pytestmark = pytest.mark.skipif(os.environ.get("MLDB_HARBOR_TRIALS") != "1",
                                reason="emulated Harbor trials run only with MLDB_HARBOR_TRIALS=1 (40-150 s each)")


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    problem = trial_venv_problem(VENV)
    if problem:
        pytest.skip(problem)
    case = load_case(ROOT, "case_01")
    return case, export_case(case, tmp_path_factory.mktemp("harbor"))


def test_oracle_gets_reward_1(task):
    case, folder = task
    result = run_trial(folder, case, "oracle", VENV)
    assert result.ok, result
    assert result.rewards == {"reward": 1, "fix_verified": 1, "location_match": 1, "fallback_added": 1, "tampering": 1}


def test_gold_fix_with_an_exit_hook_gets_0_with_tampering_failing(task):
    case, folder = task
    result = run_trial(folder, case, "exit_hook", VENV)
    assert result.ok, result
    assert result.rewards["reward"] == 0 and result.rewards["tampering"] == 0
