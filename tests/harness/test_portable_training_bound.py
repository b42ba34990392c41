"""case_05 and hard_case_05 bound "the training is the repo's" by the unchanged repo trained in the same
verification, so the gold patch passes under a CPU kernel other than the one the case was written on.
Before, the bound was a validation loss measured once under AVX-512, and gold failed under `default`."""

import json
import os
import shutil

import pytest
from typer.testing import CliRunner

from harness.cli import app

TRAINING_CHECKS = ("default:training_is_the_repos", "high_lr:training_is_the_repos", "readme_run_val_loss_is_the_repos")


@pytest.mark.slow
@pytest.mark.parametrize("case_id", ["case_05", "hard_case_05"])
def test_gold_passes_under_the_default_kernel_with_a_training_gap_of_zero(case_id, tmp_path, project_root,
                                                                           monkeypatch):
    tree = tmp_path / "gold"
    shutil.copytree(project_root / "cases" / case_id, tree)
    assert os.system(f"cd {tree} && git apply {project_root / 'answers' / case_id / 'gold.patch'}") == 0
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")  # the sandbox's allowlist passes it on
    res = CliRunner().invoke(app, ["verify", case_id, str(tree)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    rows = [r for r in json.loads(res.stdout)["result"]["checks"] if r["name"] in TRAINING_CHECKS]
    assert len(rows) == 7  # two runs on each of three seeds, and the README run
    for row in rows:
        # the gold patch leaves the training alone: the rerun of the unchanged repo matches it exactly
        assert row["value"] == 0.0 and row["sense"] == "<", row
        assert row["limit"] == (0.001 if row["name"] == "default:training_is_the_repos" else 0.01), row
