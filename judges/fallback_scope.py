"""The structure ``judges.fallback`` reads a parsed file through: parents and scopes, imports and bindings, the
small constants, the loss's names, and what feeds ``backward()``."""

from __future__ import annotations

import ast
import bisect

from judges.fallback_rules import (
    CONSTANT_MAKERS,
    EPS_NAME,
    FILL_MAKERS,
    LOSS_FUNCTIONS,
    LOSSY,
    MAX_FLAG_SOURCES,
    PASS_THROUGH,
    REPORTING,
    SMALL,
    Finding,
    _code,
    _getattr_constant,
    _number,
)
from judges.pynames import dotted, import_aliases


class _Scope:
    """Every fallback construct of one parsed file. Names are read through the file's imports and
    simple aliases (``E = Exception``, ``opt_class = torch.optim.Adam``), so renaming hides nothing."""

    def __init__(self, tree: ast.Module, file: str):
        self.tree, self.file = tree, file
        self.parent: dict[ast.AST, ast.AST] = {}
        self.scope: dict[ast.AST, str] = {}
        self._index(tree, "module", None)
        self.imports = import_aliases(tree)
        self.bindings = self._bindings()
        self.small_names = self._small_names()
        self.loss_names = self._loss_names()
        self.backward_deps: dict[str, set[str]] = {}
        self.found: list[Finding] = []
        self.optimizers: dict[str, ast.AST] = {}  # optimizer name -> first site
        self.losses: dict[str, ast.AST] = {}  # loss family -> first site

    # --- structure ------------------------------------------------------------------

    def _index(self, node, scope, parent):
        if parent is not None:
            self.parent[node] = parent
        self.scope[node] = scope
        inner = scope
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            inner = node.name if scope == "module" else f"{scope}.{node.name}"
        for child in ast.iter_child_nodes(node):
            self._index(child, inner, node)

    def _bindings(self) -> dict[str, list]:
        """Names bound to another name, an attribute chain, a constant ``getattr`` or a tuple of those:
        name -> [(scope, line, value)]."""
        out: dict[str, list] = {}
        plain = (ast.Name, ast.Attribute)
        for node in ast.walk(self.tree):
            if not (isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None):
                continue
            value = node.value
            group = isinstance(value, (ast.Tuple, ast.List)) and value.elts and all(isinstance(e, plain)
                                                                                   for e in value.elts)
            ok = isinstance(value, plain) or _getattr_constant(value) is not None or group
            if not ok:
                continue
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(t, ast.Name) and not (isinstance(value, ast.Name) and value.id == t.id):
                    out.setdefault(t.id, []).append((self.scope.get(node, "module"), node.lineno, value))
        return out

    def _binding(self, name: ast.Name):
        """The binding a use of ``name`` sees: the last one before it in its own function, else the last one
        at module level, else any (a rebinding further down cannot hide the one that is in force)."""
        found = self.bindings.get(name.id)
        if not found:
            return None
        scope, line = self.scope.get(name, "module"), getattr(name, "lineno", 0)
        own = [b for b in found if b[0] == scope and b[1] <= line]
        module = [b for b in found if b[0] == "module"]
        return max(own or module or found, key=lambda b: b[1])[2]

    def _ref(self, node, depth: int = 0) -> str:
        """The last name of what a reference stands for: ``SGD2`` -> ``Adam`` after
        ``from torch.optim import Adam as SGD2``; ``T.clamp`` -> ``clamp``."""
        constant = _getattr_constant(node)
        if constant is not None:
            return constant
        if isinstance(node, ast.Attribute):
            return node.attr
        if isinstance(node, ast.Name):
            if node.id in self.imports:
                return self.imports[node.id].rsplit(".", 1)[-1]
            bound = self._binding(node)
            if bound is not None and depth < 5 and not isinstance(bound, (ast.Tuple, ast.List)):
                return self._ref(bound, depth + 1) or node.id
            return node.id
        return ""

    def _name(self, node) -> str:
        """The resolved name of a callee (for a call) or of a reference."""
        return self._ref(node.func if isinstance(node, ast.Call) else node)

    def _is_alias(self, node) -> bool:
        """A reference whose name comes from an import or a binding (not a plain local variable)."""
        if isinstance(node, ast.Attribute):
            return dotted(node, self.imports) is not None
        return isinstance(node, ast.Name) and (node.id in self.imports or node.id in self.bindings)

    def _small_names(self) -> set[str]:
        """Names assigned a small positive constant anywhere in the file (``EPS = 1e-8``)."""
        out = set()
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and self._small(node.value):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                out |= {t.id for t in targets if isinstance(t, ast.Name)}
        return out

    def _small(self, node) -> bool:
        """A small positive constant: a literal expression in (0, 1e-3], an eps-named value, finfo().eps/tiny,
        or a tensor made of one (``torch.tensor(1e-8)``, ``x.new_tensor(1e-8)``, ``torch.full_like(x, 1e-8)``)."""
        value = _number(node)
        if value is not None:
            return 0 < value <= SMALL
        if isinstance(node, ast.Call):
            name = self._name(node)
            if name in FILL_MAKERS:
                fill = {k.arg: k.value for k in node.keywords}.get("fill_value")
                fill = fill if fill is not None else (node.args[1] if len(node.args) > 1 else None)
                return fill is not None and self._small(fill)
            if name in CONSTANT_MAKERS and node.args:
                return self._small(node.args[0])
            if name in PASS_THROUGH and isinstance(node.func, ast.Attribute):
                return self._small(node.func.value)
            return False
        if isinstance(node, ast.Name):
            return node.id in getattr(self, "small_names", set()) or bool(EPS_NAME.search(node.id))
        if isinstance(node, ast.Attribute):
            return node.attr in ("eps", "tiny", "smallest_normal") or bool(EPS_NAME.search(node.attr))
        return False

    def _loss_names(self) -> set[str]:
        """Names holding a loss or a loss function: loss-named, or assigned from a loss (``l = criterion(out, y)``
        after ``criterion = nn.CrossEntropyLoss()``), propagated through simple assignments."""
        out: set[str] = set()
        assigns = [n for n in ast.walk(self.tree) if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None]
        for _ in range(3):
            for node in assigns:
                if self._loss_like(node.value, out):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    out |= {t.id for t in targets if isinstance(t, ast.Name)}
        return out

    def _is_loss_name(self, name: str) -> bool:
        return name in LOSS_FUNCTIONS or (name.endswith("Loss") and name[:1].isupper())

    def _loss_like(self, node, names=None) -> bool:
        """Does the expression involve the loss (a loss-named value, a loss call, a name holding a loss)?"""
        names = self.loss_names if names is None else names
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and (n.id in names or LOSSY.search(n.id)):
                return True
            if isinstance(n, ast.Attribute) and LOSSY.search(n.attr):
                return True
            if isinstance(n, ast.Call) and self._is_loss_name(self._name(n)):
                return True
        return False

    def _add(self, kind: str, node) -> None:
        self.found.append(Finding(kind, self.file, self.scope.get(node, "module"), _code(node),
                                  getattr(node, "lineno", 0)))

    # --- the rules ----------------------------------------------------------------------

    def _feeds_backward(self, node) -> bool:
        child, cur = node, self.parent.get(node)
        while cur is not None and not isinstance(cur, ast.stmt):
            if isinstance(cur, ast.Call) and self._name(cur) == "backward":
                return True
            if isinstance(cur, ast.Call) and self._name(cur) in REPORTING and child is not cur.func:
                return False
            child, cur = cur, self.parent.get(cur)
        if isinstance(cur, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = cur.targets if isinstance(cur, ast.Assign) else [cur.target]
            deps = self._backward_deps(self.scope.get(cur, "module"))
            return any(isinstance(t, ast.Name) and t.id in deps for t in targets)
        if isinstance(cur, ast.Return):
            function = self.scope.get(cur, "module").rsplit(".", 1)[-1]
            return bool(LOSSY.search(function))
        return False

    def _backward_deps(self, scope: str) -> set[str]:
        """Names in ``scope`` the backpropagated value is computed from (``loss.backward()`` -> ``loss`` and
        what ``loss`` was assigned from)."""
        if scope in self.backward_deps:
            return self.backward_deps[scope]
        deps: set[str] = set()
        for n in ast.walk(self.tree):
            if isinstance(n, ast.Call) and self._name(n) == "backward" and self.scope.get(n) == scope:
                roots = ([n.func.value] if isinstance(n.func, ast.Attribute) else []) + list(n.args)
                deps |= {m.id for r in roots for m in ast.walk(r) if isinstance(m, ast.Name)}
        assigns = [n for n in ast.walk(self.tree) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                   and n.value is not None and self.scope.get(n) == scope]
        for _ in range(4):
            for a in assigns:
                targets = a.targets if isinstance(a, ast.Assign) else [a.target]
                if any(isinstance(t, ast.Name) and t.id in deps for t in targets):
                    deps |= {m.id for m in ast.walk(a.value) if isinstance(m, ast.Name)}
        self.backward_deps[scope] = deps
        return deps

    def _assignments(self, scope: str, name: str) -> list:
        """The assignments to ``name`` in one function (or the module body), indexed once per file."""
        if not hasattr(self, "_assigns"):
            self._assigns: dict[tuple[str, str], list] = {}
            for n in ast.walk(self.tree):
                if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)) and n.value is not None:
                    for t in n.targets if isinstance(n, ast.Assign) else [n.target]:
                        if isinstance(t, ast.Name):
                            self._assigns.setdefault((self.scope.get(n, "module"), t.id), []).append(n)
            for found in self._assigns.values():
                found.sort(key=lambda a: a.lineno)
        return self._assigns.get((scope, name), [])

    def _test_parts(self, test, scope: str, depth: int = 0) -> list:
        """The test of a branch, plus what a flag in it was computed from: ``bad = loss > 1e3`` or
        ``if loss > 1e3: bad = True`` before ``if bad: continue``."""
        parts = [test]
        if depth > 2:
            return parts
        names = {n.id for n in ast.walk(test) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        line = getattr(test, "lineno", 0)
        for name in sorted(names):
            found = self._assignments(scope, name)
            cut = bisect.bisect_right([a.lineno for a in found], line) if len(found) > MAX_FLAG_SOURCES else len(found)
            nearest = found[max(0, cut - MAX_FLAG_SOURCES):cut] or found[:MAX_FLAG_SOURCES]  # these set the flag
            for n in nearest:
                if n.value is not test:
                    parts += self._flag_source(n, scope, depth)
        return parts

    def _flag_source(self, n, scope: str, depth: int) -> list:
        """What one assignment to a flag was computed from: its value and the branches it sits in."""
        parts = self._test_parts(n.value, scope, depth + 1)
        cur = self.parent.get(n)
        while cur is not None and not isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if isinstance(cur, (ast.If, ast.While)):
                parts += self._test_parts(cur.test, scope, depth + 1)
            cur = self.parent.get(cur)
        return parts
