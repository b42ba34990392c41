"""The collector of ``judges.fallback``: every fallback construct of one parsed file (the kinds: that module)."""

from __future__ import annotations

import ast

from judges.fallback_rules import (
    ARRAY_LIBRARIES,
    BROAD_ERRORS,
    CAP_CALLS,
    CONSTANT_MAKERS,
    FILL_MAKERS,
    FINITE_PREDICATES,
    FLOOR_CALLS,
    GRAD_CLIPS,
    GUARDED_FUNCS,
    MASK_CALLS,
    MAX_CALLS,
    MIN_CALLS,
    NAN_REPLACERS,
    NONFINITE_CONSTANTS,
    NONFINITE_WORDS,
    OPTIMIZERS,
    REPORTING,
    SQUASHERS,
    STEP_SIZE_WORDS,
    TEXT_TESTS,
    _code,
    _stringified,
    _text,
    loss_family,
)
from judges.fallback_scope import _Scope
from judges.pynames import dotted


class _Collector(_Scope):
    """Every fallback construct of one parsed file. Names are read through the file's imports and
    simple aliases (``E = Exception``, ``opt_class = torch.optim.Adam``), so renaming hides nothing."""

    def collect(self) -> "_Collector":
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, ast.Compare):
                self._nan_compare(node)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
                if self._small(node.left) or self._small(node.right):
                    self._add("eps_floor", node)
            elif isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
                for handler in node.handlers:
                    if self._broad(handler.type) and not any(isinstance(n, ast.Raise) for n in ast.walk(handler)):
                        self._add("exception_swallow", handler)
            elif isinstance(node, (ast.If, ast.While)):
                self._skip_step(node)
            if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load) and self._is_alias(node):
                self._note_swap_candidate(node)  # a class or function referenced, not only called
        return self

    def _note_swap_candidate(self, node) -> None:
        name = self._ref(node)
        parent = self.parent.get(node)
        if name in NAN_REPLACERS and not (isinstance(parent, ast.Call) and parent.func is node):
            self._add("nan_replace", node)  # fix = torch.nan_to_num: referenced to be called later
        if name in OPTIMIZERS:
            self.optimizers.setdefault(name, node)
        if self._is_loss_name(name):
            self.losses.setdefault(loss_family(name), node)

    def _call(self, node: ast.Call) -> None:
        name = self._name(node)
        if name in FINITE_PREDICATES and self._hides(node):
            self._add("nonfinite_guard", node)
        elif name in NAN_REPLACERS:
            self._add("nan_replace", node)
        elif (name in FLOOR_CALLS and self._bound(node, "min", 0) is not None
              and self._small(self._bound(node, "min", 0))):
            self._add("eps_floor", node)
        elif name in FLOOR_CALLS and self._bound(node, "max", 1) is not None:
            self._add("value_clamp", node)
        elif name in CAP_CALLS or name in GRAD_CLIPS:
            self._add("value_clamp", node)
        elif name in MAX_CALLS and any(self._small(a) for a in self._operands(node)):
            self._add("eps_floor", node)
        elif name in MIN_CALLS and self._caps_the_loss(node, pairwise=True):
            self._add("value_clamp", node)
        elif name in SQUASHERS and self._caps_the_loss(node, pairwise=False):
            self._add("value_clamp", node)
        elif name in MASK_CALLS and self._masks_division(node):
            self._add("masked_division", node)
        elif name == "suppress" and (not node.args or any(self._broad(a) for a in node.args)):
            self._add("exception_swallow", node)
        elif name in ("seterr", "errstate") and any(isinstance(k.value, ast.Constant) and k.value.value == "ignore"
                                                    for k in node.keywords):
            self._add("exception_swallow", node)
        elif name in TEXT_TESTS and self._text_method(node) and self._hides(node):
            self._add("nonfinite_guard", node)  # str(loss).startswith("nan")
        if name in OPTIMIZERS:
            self.optimizers.setdefault(name, node)
        if self._is_loss_name(name):
            self.losses.setdefault(loss_family(name), node)

    # --- nan tests spelled as comparisons ----------------------------------------------------

    @staticmethod
    def _nonfinite_text(node) -> bool:
        """A string literal naming a non-finite value: ``'nan'``, ``'inf'``, ``'-inf'``..."""
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(_Collector._nonfinite_text(e) for e in node.elts)
        text = _text(node)
        return text is not None and text.strip().lower().lstrip("+-") in NONFINITE_WORDS

    def _text_compare(self, node: ast.Compare) -> bool:
        """``str(loss.item()) == 'nan'``, ``loss_text in ('nan', 'inf')``: a number's text compared with a
        non-finite word (a config string compared with one is not: the other side must be a value written
        out as text, or the loss)."""
        sides = [node.left, *node.comparators]
        return any(self._nonfinite_text(s) for s in sides) and any(
            _stringified(s) or self._loss_like(s) for s in sides if not self._nonfinite_text(s))

    @staticmethod
    def _text_probe(node: ast.Compare) -> bool:
        """``'n' in f'{loss}'``: a piece of 'nan'/'inf'/'infinity' looked for in a number written out as text
        (a finite number's text has no such letters)."""
        if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.In, ast.NotIn)):
            return False
        text = _text(node.left)
        return (bool(text) and text.isalpha() and any(text.lower() in w for w in NONFINITE_WORDS)
                and _stringified(node.comparators[0]))

    def _text_method(self, node: ast.Call) -> bool:
        """``str(loss).startswith('nan')``: a number's text searched for a non-finite word."""
        receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
        return receiver is not None and any(self._nonfinite_text(a) for a in node.args) and (
            _stringified(receiver) or self._loss_like(receiver))

    def _nonfinite_number(self, node) -> bool:
        """``float('nan')``, ``math.inf``, ``-np.inf``, ``torch.nan`` (or a tuple of them)."""
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(self._nonfinite_number(e) for e in node.elts)
        if isinstance(node, ast.UnaryOp):
            return self._nonfinite_number(node.operand)
        if isinstance(node, ast.Call) and self._name(node) == "float" and node.args:
            return self._nonfinite_text(node.args[0])
        return (isinstance(node, (ast.Attribute, ast.Name)) and self._is_alias(node)
                and self._ref(node) in NONFINITE_CONSTANTS)

    def _nan_compare(self, node: ast.Compare) -> None:
        """``x != x`` (true only for NaN), a comparison with the text ``'nan'``/``'inf'``, or a loss compared
        with ``math.inf``/``float('nan')``: a finiteness test like isnan."""
        sides = [node.left, *node.comparators]
        self_compare = (len(node.ops) == 1 and isinstance(node.ops[0], (ast.NotEq, ast.Eq))
                        and _code(node.left) == _code(node.comparators[0]))
        text = self._text_compare(node) or self._text_probe(node)
        number = any(self._nonfinite_number(s) for s in sides) and any(self._loss_like(s) for s in sides)
        if (self_compare or text or number) and self._hides(node):
            self._add("nonfinite_guard", node)

    def _is_finiteness_test(self, node) -> bool:
        if isinstance(node, ast.Call):
            name = self._name(node)
            return name in FINITE_PREDICATES or (name in TEXT_TESTS and self._text_method(node))
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            return any(self._nonfinite_number(s) for s in sides) or self._text_compare(node) or (
                len(sides) == 2 and _code(sides[0]) == _code(sides[1])) or self._text_probe(node)
        return False

    # --- bounds, caps and masks ------------------------------------------------------------------

    def _function_form(self, node: ast.Call) -> bool:
        """``torch.clamp(x, ...)`` (the value is the first argument) versus ``x.clamp(...)`` (a method)."""
        if not isinstance(node.func, ast.Attribute):
            return True  # clamp(x, ...), min(a, b): a bare function
        receiver = node.func.value
        if isinstance(receiver, ast.Name) and receiver.id in ("torch", "np", "numpy"):
            return True
        path = dotted(receiver, self.imports)
        return path is not None and path.split(".")[0] in ARRAY_LIBRARIES

    def _operands(self, node: ast.Call) -> list:
        """The values an elementwise call works on: the arguments, plus the receiver of a method."""
        args = [a.value if isinstance(a, ast.Starred) else a for a in node.args]
        return args if self._function_form(node) else [node.func.value, *args]

    def _bound(self, node: ast.Call, which: str, index: int):
        """The ``min`` (index 0) or ``max`` (index 1) bound of a clamp/clip call, None when absent."""
        kw = {k.arg: k.value for k in node.keywords}
        if which in kw:
            bound = kw[which]
        else:
            pos = node.args[1:] if self._function_form(node) else node.args
            if self._name(node).startswith("clamp_min"):
                pos = pos[:1] if which == "min" else []
            bound = pos[index] if len(pos) > index else None
        return None if isinstance(bound, ast.Constant) and bound.value is None else bound

    def _caps_the_loss(self, node: ast.Call, pairwise: bool) -> bool:
        """``torch.min(loss, cap)`` / ``min(loss, 10)`` (pairwise) or ``5 * tanh(loss / 5)`` whose result is
        what gets backpropagated (or returned by a loss function): a cap on the loss. A ``min`` over a list,
        a reduction along a dimension, or a running best loss is not one."""
        operands = self._operands(node)
        if pairwise and len(operands) != 2:
            return False  # min(lrs), torch.min(x): over one collection
        if pairwise and isinstance(node.func, ast.Attribute) and isinstance(operands[1], ast.Constant) \
                and type(operands[1].value) is int:
            return False  # torch.min(x, 1), x.min(0): a reduction along a dimension
        if not any(self._loss_like(o) for o in operands):
            return False
        return self._feeds_backward(node)

    def _broad(self, node, depth: int = 0) -> bool:
        if node is None:
            return True  # a bare except
        if isinstance(node, ast.Starred):
            return self._broad(node.value, depth)
        if isinstance(node, (ast.Tuple, ast.List)):
            return any(self._broad(e, depth) for e in node.elts)
        if isinstance(node, ast.Name) and node.id not in self.imports and depth < 5:
            bound = self._binding(node)
            if bound is not None:
                return self._broad(bound, depth + 1)
        return self._name(node) in BROAD_ERRORS

    def _constant_like(self, node) -> bool:
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
            return True
        return isinstance(node, ast.Call) and self._name(node) in CONSTANT_MAKERS | FILL_MAKERS

    def _divides(self, node) -> bool:
        return any((isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.FloorDiv, ast.Mod)))
                   or (isinstance(n, ast.Call) and self._name(n) in GUARDED_FUNCS) for n in ast.walk(node))

    def _masks_division(self, node: ast.Call) -> bool:
        name = self._name(node)
        if name == "where" and len(node.args) == 3:
            a, b = node.args[1], node.args[2]
            return (self._constant_like(a) and self._divides(b)) or (self._constant_like(b) and self._divides(a))
        if name.startswith("masked_") and isinstance(node.func, ast.Attribute):
            return self._divides(node.func.value)
        return False

    # --- is a finiteness test a check (stops) or a guard (hides)? ---------------------------

    def _hides(self, node, depth: int = 0) -> bool:
        child, cur = node, self.parent.get(node)
        while cur is not None:
            if isinstance(cur, ast.Assert):
                return False
            if isinstance(cur, ast.Call) and self._name(cur) in REPORTING and child is not cur.func:
                return False
            if isinstance(cur, ast.JoinedStr):
                return False
            if isinstance(cur, (ast.If, ast.While)) and child is cur.test:
                return not self._only_stops(cur)
            if isinstance(cur, ast.IfExp) and child is cur.test:
                return True
            if isinstance(cur, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
                return self._uses_hide(cur, depth)
            if isinstance(cur, ast.Return):
                return True  # a mask handed to the caller
            if isinstance(cur, ast.stmt):
                return True  # any other statement: a mask used in place (indexing, where, ...)
            child, cur = cur, self.parent.get(cur)
        return True

    def _uses_hide(self, assign, depth: int) -> bool:
        """A test stored in a variable hides when any later use of the variable does."""
        if depth > 3:
            return True
        targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
        names = {t.id for t in targets if isinstance(t, ast.Name)}
        if not names:
            return True  # stored into a subscript or attribute: a mask applied in place
        scope = self.scope.get(assign)
        uses = [n for n in ast.walk(self.tree) if isinstance(n, ast.Name) and n.id in names
                and isinstance(n.ctx, ast.Load) and self.scope.get(n) == scope]
        return any(self._hides(u, depth + 1) for u in uses)

    def _only_stops(self, branch) -> bool:
        """An if whose body only reports and raises, with no else: a check, not a fallback -- unless an
        enclosing ``try`` of the same function catches that very exception and carries on."""
        if branch.orelse or not branch.body:
            return False
        last = branch.body[-1]
        reports = all(isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and self._name(s.value) in REPORTING
                      for s in branch.body[:-1])
        return reports and isinstance(last, ast.Raise) and not self._caught_here(branch, last)

    def _caught_here(self, node, raise_node: ast.Raise) -> bool:
        """Is the exception ``raise_node`` raises caught, by its own name, in an enclosing ``try`` of the same
        function by a handler that does not re-raise? (A broad handler is reported as exception_swallow.)"""
        if raise_node.exc is None:
            return False
        raised = self._name(raise_node.exc)
        child, cur = node, self.parent.get(node)
        while cur is not None and not isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if isinstance(cur, (ast.Try, getattr(ast, "TryStar", ast.Try))) and child in cur.body:
                for h in cur.handlers:
                    caught = [h.type] if not isinstance(h.type, ast.Tuple) else h.type.elts
                    if (h.type is not None and not self._broad(h.type) and any(self._name(c) == raised for c in caught)
                            and not any(isinstance(n, ast.Raise) for n in ast.walk(h))):
                        return True
            child, cur = cur, self.parent.get(cur)
        return False

    def _skip_step(self, node) -> None:
        """A branch on the loss or gradient size that skips the rest of the step, or wraps the step."""
        parts = self._test_parts(node.test, self.scope.get(node, "module"))
        if any(self._is_finiteness_test(n) for p in parts for n in ast.walk(p)):
            return  # counted as nonfinite_guard
        sized = [c for p in parts for c in ast.walk(p) if isinstance(c, ast.Compare)
                 and isinstance(c.ops[0], (ast.Gt, ast.GtE, ast.Lt, ast.LtE))
                 and (STEP_SIZE_WORDS.search(_code(c)) or self._loss_like(c))]
        if not sized:
            return
        skips = any(isinstance(s, (ast.Continue, ast.Break, ast.Return, ast.Pass)) for s in node.body + node.orelse)
        wraps = any(isinstance(n, ast.Call) and self._name(n) in ("backward", "step")
                    for s in node.body + node.orelse for n in ast.walk(s))
        if (skips or wraps) and not self._only_stops(node):
            self._add("skip_step", node)
