"""What a name in a parsed Python file stands for, through the file's imports.

Shared by the graders that read the agent's code (``tampering``, ``fallback_added``), so that
``import sys as s`` or ``from torch import nan_to_num as fix`` hides nothing from either.
"""

from __future__ import annotations

import ast


def import_aliases(tree: ast.AST) -> dict[str, str]:
    """Local name -> the dotted module path it stands for, from the file's imports."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            # `from .signal import x` is the package's own module: the leading dots keep it from
            # reading as the standard library's `signal`
            for a in node.names:
                out[a.asname or a.name] = f"{'.' * node.level}{node.module}.{a.name}"
    return out


def dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """``s.argv`` -> ``sys.argv`` when ``s`` is an imported name; None otherwise."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in aliases:
        return ".".join([aliases[node.id], *reversed(parts)])
    return None
