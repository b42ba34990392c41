"""answers/verifylib.py helpers that several cases' measuring halves share."""

import importlib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "answers"))
from verifylib import (  # noqa: E402
    Checks,
    check_readme_log_equals_measured_stdout,
    is_training_model,
    linear_fit_r2,
    minus_group_means,
    run_readme_config,
    workspace_holders,
)


@pytest.fixture
def modules(tmp_path, monkeypatch):
    """A workspace with a defining module and an importer, and an outside module that also holds the function."""
    ws, outside = tmp_path / "ws", tmp_path / "elsewhere"
    ws.mkdir()
    outside.mkdir()
    (ws / "wh_data.py").write_text("def iterate_batches():\n    return 1\n")
    (ws / "wh_train.py").write_text("from wh_data import iterate_batches\n")
    (ws / "wh_other.py").write_text("iterate_batches = None\n")
    (outside / "wh_outside.py").write_text("from wh_data import iterate_batches\n")
    monkeypatch.chdir(ws)
    monkeypatch.syspath_prepend(str(outside))
    monkeypatch.syspath_prepend(str(ws))
    names = ["wh_data", "wh_train", "wh_other", "wh_outside"]
    loaded = {n: importlib.import_module(n) for n in names}
    yield loaded
    for n in names:
        sys.modules.pop(n, None)


def test_holders_are_the_workspace_modules_that_hold_the_function(modules):
    original = modules["wh_data"].iterate_batches
    got = workspace_holders("iterate_batches", original)
    assert {m.__name__ for m in got} == {"wh_data", "wh_train"}


def test_excluded_modules_are_left_out(modules):
    original = modules["wh_data"].iterate_batches
    got = workspace_holders("iterate_batches", original, exclude=(modules["wh_data"],))
    assert [m.__name__ for m in got] == ["wh_train"]


LOG = ("step 10 | epoch 1 | val loss 0.5000 | val acc 0.8000 | val bal acc 0.7000\n"
       "step 20 | epoch 2 | val loss 0.4000 | val acc 0.8500 | val bal acc 0.7500\n"
       "final: balanced acc 0.7500 | alarm 0.6000\n")


class Recorded:
    """A measured seed as decide sees it: what run() printed."""

    def __init__(self, stdout):
        self.stdout = stdout

    def value(self, key, kind):
        assert key == "stdout" and kind is str
        return self.stdout


def finals(stdout):
    import re

    got = re.search(r"balanced acc ([0-9.]+) \| alarm ([0-9.]+)", stdout)
    return (float(got.group(1)), float(got.group(2))) if got else (float("nan"), float("nan"))


def readme_rows(run_stdout, exit_code=0, measured_stdout=LOG):
    checks = Checks()
    ok, printed = check_readme_log_equals_measured_stdout(
        checks, {"exit_code": exit_code, "stdout": run_stdout}, {0: Recorded(measured_stdout)}, finals=finals, tol=2e-4)
    return ok, printed, {r["name"]: r for r in checks.rows}


def test_readme_log_equal_to_the_measured_run_passes_and_returns_its_final_numbers():
    ok, printed, rows = readme_rows(LOG)
    assert ok and printed == (0.75, 0.6)
    assert rows["readme_run_exit_ok"]["passed"] and rows["readme_run_matches_measured_training"]["passed"]


def test_a_forged_epoch_row_or_final_line_fails_the_comparison():
    _, _, rows = readme_rows(LOG.replace("val acc 0.8500", "val acc 0.9500"))
    assert not rows["readme_run_matches_measured_training"]["passed"]
    _, _, rows = readme_rows(LOG.replace("alarm 0.6000", "alarm 0.9000"))
    assert not rows["readme_run_matches_measured_training"]["passed"]
    _, _, rows = readme_rows(LOG.replace("final: balanced acc 0.7500 | alarm 0.6000\n", ""))
    assert rows["readme_run_matches_measured_training"]["value"] == float("inf")


def test_a_failed_run_or_a_missing_row_fails():
    ok, _, rows = readme_rows(LOG, exit_code=1)
    assert not ok and not rows["readme_run_exit_ok"]["passed"]
    _, _, rows = readme_rows(LOG.splitlines(keepends=True)[0] + LOG.splitlines(keepends=True)[2])
    assert not rows["readme_run_matches_measured_training"]["passed"]


class _Handle:
    def __init__(self):
        self.removed = False

    def remove(self):
        self.removed = True


def test_the_readme_config_runs_at_the_seed_with_its_printing_captured_and_hooks_removed():
    seen, handle = [], _Handle()

    def load_config(path, overrides):
        seen.append((path, overrides))
        return {"path": path}

    def run(cfg):
        print("epoch 1 | loss 0.5")
        return "model"

    cfg, printed, result = run_readme_config(load_config, run, "configs/x.toml", 2, [handle])
    assert seen == [("configs/x.toml", ["train.seed=2"])] and cfg == {"path": "configs/x.toml"}
    assert printed == "epoch 1 | loss 0.5\n" and result == "model" and handle.removed


def test_hooks_are_removed_when_the_run_raises():
    handle = _Handle()

    def run(cfg):
        raise RuntimeError("diverged")

    with pytest.raises(RuntimeError):
        run_readme_config(lambda path, overrides: None, run, "c.toml", 0, [handle])
    assert handle.removed


def test_the_training_model_is_a_training_module_with_gradients_and_a_trainable_parameter():
    torch = pytest.importorskip("torch")
    model, frozen = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)
    frozen.requires_grad_(False)
    assert is_training_model(model) and not is_training_model(frozen) and not is_training_model(torch.nn.ReLU())
    assert not is_training_model(model.eval())
    with torch.no_grad():
        assert not is_training_model(model.train())


def test_group_means_are_taken_out_per_group_and_the_input_is_left_alone():
    np = pytest.importorskip("numpy")
    values = np.array([[1.0, 10.0], [3.0, 30.0], [5.0, 7.0]])
    out = minus_group_means(values, np.array(["a", "a", "b"]))
    assert np.allclose(out, [[-1.0, -10.0], [1.0, 10.0], [0.0, 0.0]])
    assert values[0, 0] == 1.0  # a copy: read-only or shared inputs are not written
    level = np.array([2.0, 4.0, 9.0])
    assert np.allclose(minus_group_means(level + np.array([100.0, 100.0, -5.0]), ["a", "a", "b"]),
                       minus_group_means(level, ["a", "a", "b"]))  # a per-group constant is gone



def test_linear_fit_r2_measures_how_much_of_a_level_the_inputs_carry():
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 3))
    level = 2.0 * x[:, 0] - x[:, 2] + 5.0
    assert linear_fit_r2(x, level) == pytest.approx(1.0)  # any linear form, any offset (the intercept)
    assert linear_fit_r2(x[:, 1:2], level) < 0.05  # a column that does not carry it
    noisy = level + rng.normal(scale=float(level.std()), size=200)
    assert 0.3 < linear_fit_r2(x, noisy) < 0.7
    assert linear_fit_r2(x[:, 0], level + x[:, 2]) == pytest.approx(1.0)  # one column given as (n,)
    centred = x - x.mean(0)  # on mean-zero data the intercept changes nothing: the fits it replaced had none
    coef, *_ = np.linalg.lstsq(centred, noisy - noisy.mean(), rcond=None)
    without = 1.0 - (noisy - noisy.mean() - centred @ coef).var() / noisy.var()
    assert linear_fit_r2(centred, noisy - noisy.mean()) == pytest.approx(without, abs=1e-12)
    assert np.isfinite(linear_fit_r2(x, np.full(200, 3.0)))  # a constant level: no division by zero
