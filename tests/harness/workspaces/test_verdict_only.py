"""Verdict-only verification (validate's wrong fixes): stop at a failing first seed, and otherwise reach
exactly the full verification's verdict. A small fixture verifier on a copy of case_01 keeps it fast."""

import json
import shutil
import subprocess
import sys

import pytest

from harness.core.cases import load_cases
from harness.isolation.sandbox import get_sandbox
from harness.workspaces.verification import verify_tree

MEASURE = '''import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import measure_main  # noqa: E402


def measure(seed, rec):
    import json
    rec.put("v", json.loads(Path("values.json").read_text())[str(seed)])
    plant = Path("plant_seed_0.json")  # stands for agent code writing into the measurements folder
    if seed != 0 and plant.exists():
        (rec.out / "seed_0.json").write_text(plant.read_text())


measure_main(measure)
'''
DECIDE = '''import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import decide_main  # noqa: E402


def decide(seed, m, checks):
    v = m.number("v")
    checks.check("v_below_one", v < 1, value=v, bound="< 1", limit=1.0, sense="<")


def readme(run, measured, checks):
    checks.check("readme_prints_ok", "ok" in run["stdout"], value=run["stdout"][-50:], source="readme_run")


decide_main(decide, readme=readme)
'''


@pytest.fixture
def fixture_case(mini_root):
    answers = mini_root / "answers" / "case_01"
    (answers / "measure.py").write_text(MEASURE)
    (answers / "decide.py").write_text(DECIDE)
    toml = mini_root / "cases" / "case_01" / "case.toml"
    toml.write_text(toml.read_text().replace('run = "python train.py"', 'run = "cat readme.txt"'))
    (case,) = load_cases(mini_root, ["case_01"])
    return case


def _tree(tmp_path, values, readme="ok"):
    tree = tmp_path / "tree"
    tree.mkdir(exist_ok=True)
    (tree / "values.json").write_text(json.dumps({str(k): v for k, v in values.items()}))
    (tree / "readme.txt").write_text(readme)
    return tree


def test_a_failing_first_seed_stops_early(fixture_case, tmp_path):
    tree = _tree(tmp_path, {0: 5.0, 1: 0.1, 2: 0.1})
    quick = verify_tree(fixture_case, tree, get_sandbox("auto"), verdict_only=True)
    assert quick.status == "fail" and quick.early_stop
    assert quick.result["seeds"] == {"0": False} and quick.readme_run is None
    assert quick.result["partial"]["decided_seeds"] == [0]
    full = verify_tree(fixture_case, tree, get_sandbox("auto"))
    assert full.status == "fail" and not full.early_stop and set(full.result["seeds"]) == {"0", "1", "2"}


def test_a_failing_readme_run_stops_at_the_first_seed_with_the_full_runs_readme_checks(fixture_case, tmp_path):
    tree = _tree(tmp_path, {0: 0.1, 1: 0.2, 2: 0.3}, "no")
    quick = verify_tree(fixture_case, tree, get_sandbox("auto"), verdict_only=True)
    full = verify_tree(fixture_case, tree, get_sandbox("auto"))
    assert quick.status == full.status == "fail" and quick.early_stop and not full.early_stop
    assert quick.result["partial"] == {"decided_seeds": [0], "case_seeds": [0, 1, 2], "readme_checked": True}
    assert quick.readme_run is not None and quick.readme_run.exit_code == 0

    def readme_rows(run):
        return [(r["name"], r["passed"], r["value"]) for r in run.result["checks"] if r["source"] == "readme_run"]
    assert readme_rows(quick) == readme_rows(full) and ("readme_prints_ok", False, "no") in readme_rows(quick)


def test_readme_checks_wait_for_the_readme_seed(fixture_case, tmp_path):
    """A verifier whose README run trains a seed other than the first: the first-seed phase cannot make its
    README checks (they compare with that seed), so no early stop on them; the full verdict decides."""
    decide = fixture_case.answer_dir / "decide.py"
    decide.write_text(DECIDE.replace("decide_main(decide, readme=readme)",
                                     "decide_main(decide, readme=readme, readme_seed=2)"))
    tree = _tree(tmp_path, {0: 0.1, 1: 0.2, 2: 0.3}, "no")
    quick = verify_tree(fixture_case, tree, get_sandbox("auto"), verdict_only=True)
    assert quick.status == "fail" and not quick.early_stop and len(quick.result["seeds"]) == 3
    first = verify_tree(fixture_case, tree, get_sandbox("auto"), readme_first=True)
    assert first.status == "fail" and not first.early_stop


def test_readme_first_shows_the_readme_checks_of_a_fix_that_fails_its_first_seed_too(fixture_case, tmp_path):
    """The verifier-recognising corpus check (conventions): the README phase comes first, so a fix rejected on
    its first seed as well still shows which README checks reject it."""
    tree = _tree(tmp_path, {0: 5.0, 1: 0.1, 2: 0.1}, "no")
    out = verify_tree(fixture_case, tree, get_sandbox("auto"), readme_first=True)
    assert out.status == "fail" and out.early_stop
    failed = {r["name"] for r in out.result["checks"] if not r["passed"]}
    assert failed == {"v_below_one", "readme_prints_ok"}


@pytest.mark.slow
@pytest.mark.parametrize("values, readme, status", [
    ({0: 0.1, 1: 0.2, 2: 0.3}, "ok", "pass"),
    ({0: 0.1, 1: 0.2, 2: 3.0}, "ok", "fail"),   # a later seed fails
])
def test_a_passing_first_seed_gets_the_full_verdict(fixture_case, tmp_path, values, readme, status):
    tree = _tree(tmp_path, values, readme)
    quick = verify_tree(fixture_case, tree, get_sandbox("auto"), verdict_only=True)
    full = verify_tree(fixture_case, tree, get_sandbox("auto"))
    assert quick.status == full.status == status
    assert not quick.early_stop and "partial" not in quick.result
    assert quick.result["seeds"] == full.result["seeds"] and len(quick.result["seeds"]) == 3
    assert [(r["name"], r["seed"], r["value"]) for r in quick.result["checks"]] == \
        [(r["name"], r["seed"], r["value"]) for r in full.result["checks"]]


def test_a_partial_verdict_is_marked_and_only_a_caller_that_asked_takes_it(fixture_case, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    for seed in (0, 1, 2):
        (out / f"seed_{seed}.json").write_text(json.dumps({"seed": seed, "status": "ok", "values": {"v": 0.1}}))
    (out / "readme_run.json").write_text(json.dumps({"stdout": "ok", "exit_code": 0, "timed_out": False}))
    decide = fixture_case.answer_dir / "decide.py"
    shutil.copy(fixture_case.answer_dir.parent / "verifylib.py", decide.parent)  # as the bundle has it

    def run(*extra):
        proc = subprocess.run([sys.executable, "-I", str(decide), str(out), *extra], capture_output=True, text=True)
        return proc.returncode, json.loads(proc.stdout.strip().splitlines()[-1]) if proc.stdout.strip() else proc.stderr

    code, verdict = run()
    assert code == 0 and verdict["passed"] and "partial" not in verdict, verdict
    code, verdict = run("--seeds=1", "--no-readme")
    assert verdict["seeds"] == {"0": True} and not any(r["source"] == "readme_run" for r in verdict["checks"])
    assert verdict["partial"] == {"decided_seeds": [0], "case_seeds": [0, 1, 2], "readme_checked": False}
    code, verdict = run("--no-readme")  # every seed, no README checks: marked partial too
    assert len(verdict["seeds"]) == 3 and verdict["partial"]["readme_checked"] is False
    for bad in ("--seeds=everything", "--seeds=0", "--readme"):
        assert run(bad)[0] not in (0, 1), bad


def test_a_full_verification_never_takes_a_partial_pass(fixture_case, tmp_path):
    """A decider that answers a full verification with a partial pass (it decided fewer seeds than asked)
    cannot pass: the harness, which asked for every seed, calls it an error."""
    (fixture_case.answer_dir / "decide.py").write_text(
        "import json\nprint(json.dumps({'passed': True, 'seeds': {'0': True}, 'checks': [{'name': 'x', 'passed': True}],"
        " 'partial': {'decided_seeds': [0]}}))\n")
    run = verify_tree(fixture_case, _tree(tmp_path, {0: 0.1, 1: 0.2, 2: 0.3}), get_sandbox("auto"))
    assert run.status == "error" and "fewer seeds" in run.reason


def test_planted_measurements_get_the_full_verdict_either_way(fixture_case, tmp_path):
    """Agent code that writes another seed's record while measured: verdict-only reaches the full verdict."""
    tree = _tree(tmp_path, {0: 0.1, 1: 0.2, 2: 0.3})
    (tree / "plant_seed_0.json").write_text(json.dumps({"seed": 0, "status": "ok", "values": {"v": 9.0}}))
    quick = verify_tree(fixture_case, tree, get_sandbox("auto"), verdict_only=True)
    full = verify_tree(fixture_case, tree, get_sandbox("auto"))
    assert quick.status == full.status == "fail" and not quick.early_stop
