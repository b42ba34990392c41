"""The project files an exported task must carry for its grader, read from the imports themselves (``ast``), so
that a new import in the grader or in anything it imports is never left out of ``tests/mldb/`` by a hand-kept list.

Every ``import`` counts, at module level or inside a function (the grader imports lazily); importing a module
runs its packages' ``__init__`` files, so those count and are walked too. Only imports written out are seen:
``importlib.import_module`` and ``__import__`` are not (the grader's modules use them for nothing it calls; the
export test imports the vendored files alone to check)."""

from __future__ import annotations

import ast
from pathlib import Path

from harness.core.errors import InputError
from harness.core.pyparse import parse

PACKAGES = ("harness", "judges")  # the project's top-level packages: anything else is stdlib or third-party


def module_file(root: Path, module: str) -> Path | None:
    """The file of a project module under ``root`` (``a/b.py`` or ``a/b/__init__.py``), None when there is none."""
    base = root.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    """The module a ``from`` import names, relative ones resolved against the importing module's package."""
    if not node.level:
        return node.module or ""
    parts = importer.split(".") if is_package else importer.split(".")[:-1]
    parts = parts[:len(parts) - (node.level - 1)]
    return ".".join([*parts, *([node.module] if node.module else [])])


def project_imports(root: Path, path: Path, importer: str) -> set[str]:
    """The project modules the file ``path`` (the module ``importer``) imports: ``from pkg import name`` is
    ``pkg.name`` when that is a module, else ``pkg``."""
    found = set()
    for node in ast.walk(parse(path.read_bytes(), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node, importer, path.name == "__init__.py")
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                found.add(sub if module_file(root, sub) else module)
    return {m for m in found if m.split(".")[0] in PACKAGES}


def vendored_files(root: Path, entries: tuple[Path, ...]) -> tuple[str, ...]:
    """Every project file (relative to ``root``, sorted) that importing what ``entries`` import loads: the
    modules, their packages' ``__init__`` files, and so on down. A project import with no file under ``root``
    is an error naming the importing file."""
    files: set[Path] = set()
    todo = [(entry, entry.stem) for entry in entries]
    while todo:
        path, importer = todo.pop()
        for module in sorted(project_imports(root, path, importer)):
            parts = module.split(".")
            for depth in range(1, len(parts) + 1):  # harness, harness.core, harness.core.hashing
                name = ".".join(parts[:depth])
                found = module_file(root, name)
                if found is None:
                    raise InputError(path, f"imports {module}, but {name} is no module under {root}")
                if found not in files:
                    files.add(found)
                    todo.append((found, name))
    return tuple(sorted(p.relative_to(root).as_posix() for p in files))
