"""Load the skill text for the ``skill`` condition, failing before any sample runs if it is unusable."""

from __future__ import annotations

from pathlib import Path

from harness.errors import InputError
from harness.hashing import sha256_text

SKILL_FILE = "SKILL.md"


def load_skill(path: Path) -> tuple[str, str]:
    """A markdown file, or a folder holding SKILL.md -> (text, sha256 of the text injected)."""
    path = Path(path)
    target = path / SKILL_FILE if path.is_dir() else path
    if not target.exists():
        what = f"folder has no {SKILL_FILE}" if path.is_dir() else "skill file not found"
        raise InputError(target, what)
    try:
        text = target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(target, f"cannot read the skill: {exc}") from exc
    if not text.strip():
        raise InputError(target, "the skill file is empty")
    return text, sha256_text(text)
