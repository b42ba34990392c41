"""The README's two commands are the real ones, and CI runs the second verbatim."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```bash\n(.*?)```", text, re.S).group(1)
    return [line for line in block.splitlines() if line and not line.startswith("#")]


def test_readme_opens_with_exactly_two_commands():
    cmds = _readme_commands()
    assert len(cmds) == 2
    assert "ml-debug-bench run --agent reference" in cmds[0]
    assert "pytest" in cmds[1] and ".[test]" in cmds[1]


def test_ci_runs_the_readme_test_command():
    assert _readme_commands()[1] in (ROOT / ".ci" / "run").read_text()


def test_ci_lints_before_the_tests():
    """`.ci/run` runs `ruff check .` (configured in pyproject.toml) before the README's test command."""
    run = (ROOT / ".ci" / "run").read_text()
    lint = run.find("ruff check .")
    assert lint != -1 and lint < run.index(_readme_commands()[1])


def test_every_standard_case_has_a_row_in_the_readme_table():
    """The README's case table is read against the case folders: a new case without a row fails here."""
    from harness.core.cases import list_case_ids

    rows = set(re.findall(r"^\| (case_\d\d) \|", (ROOT / "README.md").read_text(), re.M))
    assert rows == set(list_case_ids(ROOT, "standard"))
