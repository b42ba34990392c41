"""Load the skill text for the ``skill`` condition, failing before any sample runs if it is unusable, and
install a skill the way each agent loads it (CLI skill folders; references for the built-in agent)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from harness.core.errors import InputError
from harness.core.hashing import sha256_text

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


def skill_name(path: Path) -> str:
    """A tool-safe skill name: the folder's name (or the file's stem), lower-case letters, digits, '-'."""
    path = Path(path)
    raw = path.name if path.is_dir() else (path.parent.name if path.name == SKILL_FILE else path.stem)
    name = "".join(c if c.isalnum() else "-" for c in raw.lower()).strip("-")
    return name or "skill"


def with_frontmatter(text: str, name: str) -> str:
    """SKILL.md as Claude Code and Codex load it: YAML front matter with ``name`` and ``description``
    (both tools skip a skill without them). A skill that has front matter is left as written."""
    if text.lstrip().startswith("---"):
        return text
    first = next((line.strip("# ").strip() for line in text.splitlines() if line.strip()), name)
    description = first.replace('"', "'")[:300]
    return f'---\nname: {name}\ndescription: "{description}"\n---\n\n{text}'


def install_skill(path: Path, skills_dir: Path) -> Path:
    """Copy a skill (a SKILL.md file, or its folder with ``references/`` and other files) to
    ``skills_dir/NAME/``, the layout both Claude Code and Codex load skills from. Returns the folder.

    Only regular files are copied, never links (the skill folder is the user's, but a link in it
    could point anywhere on the host)."""
    import shutil

    path = Path(path)
    text, _ = load_skill(path)
    name = skill_name(path)
    dest = Path(skills_dir) / name
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    if path.is_dir():
        for src in sorted(path.rglob("*")):
            rel = src.relative_to(path)
            if src.is_symlink() or any(part.startswith(".") for part in rel.parts):
                continue
            if src.is_dir():
                (dest / rel).mkdir(parents=True, exist_ok=True)
            elif src.is_file():
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dest / rel)
    (dest / SKILL_FILE).write_text(with_frontmatter(text, name), encoding="utf-8")
    return dest


REFERENCES_DIR = ".skill"  # in the built-in agent's workspace: the skill's references/, removed before the diff


@contextmanager
def skill_references(task):
    """For the built-in agent in the skill arm: its skill text is in the system prompt; the files the
    skill refers to (``references/`` of a skill folder) are copied to ``.skill/references/`` in the
    workspace, one sentence of the task prompt says where, and they are removed before the diff.
    Yields the task to run (unchanged when there is nothing to copy)."""
    import shutil
    from dataclasses import replace

    refs = Path(task.skill_path) / "references" if task.skill_path is not None else None
    if refs is None or not refs.is_dir() or refs.is_symlink():
        yield task
        return
    dest = task.workspace / REFERENCES_DIR
    shutil.copytree(refs, dest / "references", symlinks=True,
                    ignore=lambda d, names: [n for n in names if (Path(d) / n).is_symlink()])
    task.tools.watcher.changes()  # the harness's copy, not an agent edit
    note = (f"\n\nThe skill's reference files are in `{REFERENCES_DIR}/references/` in the repository "
            "(they are not part of it and are removed before grading).\n")
    task.transcript.append("message", role="user", content=note.strip())
    try:
        yield replace(task, prompt=task.prompt + note)
    finally:
        shutil.rmtree(dest, ignore_errors=True)
        task.tools.watcher.changes()
