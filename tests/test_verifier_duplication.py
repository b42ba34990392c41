"""Verifier bodies are written once per bug (answers/families/): pylint's duplicate-code check finds no
block of 6 or more lines shared between two cases' measure.py or decide.py files (comments, docstrings
and imports ignored).

pylint names a module by its file name, so every half would be "decide" or "measure"; each is copied
under a name that says its case first. A `wip_` candidate's halves are drafts the harness does not load
(docs/cases.md); they come under this check when the candidate enters under its own id."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HALVES = ("measure.py", "decide.py")
PYLINT = ["--disable=all", "--enable=duplicate-code", "--min-similarity-lines=6", "--ignore-comments=y",
          "--ignore-docstrings=y", "--ignore-imports=y", "--ignore-signatures=y", "--score=n"]


def shared_blocks(answers: Path, scratch: Path) -> list[str]:
    """One line per shared block: the files and how many lines."""
    for half in HALVES:
        for src in sorted(p for p in answers.glob(f"*/{half}") if not p.parent.name.startswith("wip_")):
            shutil.copyfile(src, scratch / f"{src.parent.name}__{src.stem}.py")
    out = subprocess.run([sys.executable, "-m", "pylint", *PYLINT, *sorted(str(p) for p in scratch.glob("*.py"))],
                         capture_output=True, text=True, cwd=scratch)
    blocks = []
    for chunk in out.stdout.split("Similar lines in ")[1:]:
        spans = re.findall(r"==(\w+):\[(\d+):(\d+)\]", chunk)
        where = ", ".join(f"{name.replace('__', '/')}.py:{a}-{b}" for name, a, b in spans)
        blocks.append(f"{int(spans[0][2]) - int(spans[0][1])} lines: {where}")
    assert out.returncode in (0, 8) and ("Similar lines" in out.stdout) == bool(blocks), out.stdout + out.stderr
    return blocks


def test_no_verifier_block_is_written_twice(tmp_path):
    blocks = shared_blocks(ROOT / "answers", tmp_path)
    assert not blocks, "move these into answers/families/ (answers/README.md):\n" + "\n".join(blocks)


def test_the_check_sees_a_copied_block(tmp_path):
    """The check is not vacuous: a block copied between two halves is found."""
    answers = tmp_path / "answers"
    body = "".join(f"    total = total * {i} + value\n" for i in range(8))
    for case in ("case_91", "case_92"):
        (answers / case).mkdir(parents=True)
        (answers / case / "decide.py").write_text(f"def f(value):\n    total = 0\n{body}    return total\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    blocks = shared_blocks(answers, scratch)
    assert len(blocks) == 1 and "case_91/decide.py" in blocks[0] and "case_92/decide.py" in blocks[0]
