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


def test_printing_back_what_the_agent_wrote_is_not_a_leak(project_root):
    """A blind solver wrote a docstring that shares eight words with the key, then printed the file."""
    from harness.models import ToolCallEvent

    case = load_case(project_root, "case_05")
    own = "the update is lr * m_hat / (sqrt(v_hat) + eps) plus decoupled weight decay for AdamW"
    write = ToolCallEvent(id=1, t=0, call_id="c", name="bash",
                          arguments={"command": f"cat > monitor.py <<'EOF'\n# {own}\nEOF"})
    show = ToolResultEvent(id=2, t=0, call_id="c", stdout=f"# {own}\n", stderr="", exit_code=0, duration_s=0.1)
    assert answer_leak([show], case).status == "fail"  # the same words, never written by the agent: the key's
    assert answer_leak([write, show], case).status == "pass"
    # Writing one of the key's phrases does not launder the rest of the key.
    rest = ToolResultEvent(id=3, t=0, call_id="c", stdout=case.key.root_cause, stderr="", exit_code=0, duration_s=0.1)
    assert answer_leak([write, show, rest], case).status == "fail"
