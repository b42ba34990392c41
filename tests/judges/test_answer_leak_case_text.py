"""answer_leak's eight-word fingerprints never count text the agent was given: the case's own files."""

import ast

from harness.core.cases import load_case
from harness.models import ToolResultEvent
from judges.deterministic import answer_leak


def _printed(text):
    return [ToolResultEvent(id=1, t=0, call_id="c", stdout=text, stderr="", exit_code=0, duration_s=0.1)]


def test_printing_the_case_files_is_not_a_leak(project_root):
    """A blind solver's `cat case.toml` matched a decider docstring that lists the entry points."""
    for case_id in ("case_04", "hard_case_04"):
        case = load_case(project_root, case_id)
        for path in sorted(case.case_dir.rglob("*")):
            if path.is_file() and path.suffix in (".toml", ".md", ".py"):
                assert answer_leak(_printed(path.read_text(encoding="utf-8")), case).status == "pass", path


def test_printing_the_deciders_docstring_still_is(project_root):
    case = load_case(project_root, "case_04")
    doc = ast.get_docstring(ast.parse((case.answer_dir / case.key.decide).read_text(encoding="utf-8")))
    assert answer_leak(_printed(doc), case).status == "fail"
