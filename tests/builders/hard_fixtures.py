"""A throwaway project root with a standard case, a fake hard case and an unfinished one (no torch needed)."""

from __future__ import annotations

import shutil
from pathlib import Path

from harness.core.cases import copy_shared_verifier_code

ROOT = Path(__file__).resolve().parents[2]

HARDNESS = '\n[hardness]\nconstruct = "softmax"\nanomaly_over_fix = "raise_lr"\n'


def make_hard_root(tmp: Path, hardness: str | None = HARDNESS) -> Path:
    """``tmp`` holding case_01, hard_case_99 (a copy of case_01 under a hard id, with ``hardness`` appended to its
    key) and wip_hard_case_98 (a folder the loader must ignore), plus verifylib.py."""
    for part in ("cases", "answers"):
        shutil.copytree(ROOT / part / "case_01", tmp / part / "case_01")
        shutil.copytree(ROOT / part / "case_01", tmp / part / "hard_case_99")
        shutil.copytree(ROOT / part / "case_01", tmp / part / "wip_hard_case_98")
    copy_shared_verifier_code(ROOT / "answers", tmp / "answers")
    (tmp / "cases" / "scratch").mkdir()
    manifest = tmp / "cases" / "hard_case_99" / "case.toml"
    manifest.write_text(manifest.read_text().replace('id = "case_01"', 'id = "hard_case_99"'))
    key = tmp / "answers" / "hard_case_99" / "key.toml"
    key.write_text(key.read_text().replace('case_id = "case_01"', 'case_id = "hard_case_99"') + (hardness or ""))
    return tmp


def grow_project(case_dir: Path, modules: int = 10, lines: int = 130, construct_line: str | None = None) -> None:
    """Add ``modules`` real-looking .py modules of ``lines`` lines each (optionally one construct use each)."""
    for i in range(modules):
        body = [f'"""Helper module {i}."""', "", "import math", ""]
        if construct_line:
            body.append(construct_line)
        n = 0
        while len(body) < lines:
            body += [f"def scale_{n}(x):", f"    return math.sqrt(x) * {n + 1}", ""]
            n += 1
        (case_dir / f"zz_helper_{i:02d}.py").write_text("\n".join(body[:lines]) + "\n")
