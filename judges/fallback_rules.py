"""The vocabulary of ``judges.fallback``: the names of the calls and constants each kind looks for, ``Finding``,
and the helpers that read a node's name, text and number."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

FINITE_PREDICATES = {"isfinite", "isnan", "isinf", "isposinf", "isneginf"}
NAN_REPLACERS = {"nan_to_num", "nan_to_num_", "fillna", "nanmean", "nansum", "nanmedian", "nanquantile", "nanstd",
                 "nanvar", "nanmax", "nanmin", "nanprod", "nancumsum"}
FLOOR_CALLS = {"clamp", "clamp_", "clip", "clip_", "clamp_min", "clamp_min_"}
MAX_CALLS = {"maximum", "fmax", "max"}
GUARDED_FUNCS = {"log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal", "div", "true_divide", "divide"}
MASK_CALLS = {"where", "masked_fill", "masked_fill_", "masked_scatter", "masked_scatter_"}
CONSTANT_MAKERS = {"zeros_like", "ones_like", "zeros", "ones", "new_zeros", "new_ones", "tensor", "as_tensor",
                   "scalar_tensor", "new_tensor", "asarray", "array", "float32", "float64"}
FILL_MAKERS = {"full_like", "full", "new_full"}  # the value is the fill (second argument or fill_value=)
PASS_THROUGH = {"to", "type_as", "float", "double", "half", "cuda", "cpu", "expand_as", "expand", "item", "detach",
                "clone", "view_as", "reshape"}  # a small tensor stays small through these
CAP_CALLS = {"clamp_max", "clamp_max_"}  # always an upper bound
MIN_CALLS = {"min", "minimum", "fmin"}
SQUASHERS = {"tanh", "tanh_", "hardtanh", "hardtanh_", "atan", "arctan", "softsign", "sigmoid", "log1p", "asinh",
             "arcsinh"}  # a soft (or hard) cap when applied to the loss
TEXT_TESTS = {"startswith", "endswith", "__contains__", "count", "find"}
NONFINITE_WORDS = {"nan", "inf", "infinity"}
NONFINITE_CONSTANTS = {"inf", "nan", "infty", "Inf", "NaN", "NAN", "NINF", "PINF", "Infinity"}
ARRAY_LIBRARIES = {"torch", "numpy", "jax", "tensorflow", "math", "scipy"}
MAX_FLAG_SOURCES = 8  # assignments to a flag read back from one branch (the nearest before it)
LOSSY = re.compile(r"loss|criterion|objective", re.I)  # names that hold the loss or compute it
REPORTING = {"print", "log", "debug", "info", "warning", "warn", "error", "exception", "critical", "write", "format",
             "add_scalar", "append"}
BROAD_ERRORS = {"Exception", "BaseException", "FloatingPointError", "ArithmeticError", "ZeroDivisionError",
                "OverflowError", "RuntimeError", "ValueError", "AssertionError"}
OPTIMIZERS = {"SGD", "Adam", "AdamW", "Adamax", "Adagrad", "Adadelta", "RMSprop", "Rprop", "NAdam", "RAdam", "LBFGS",
              "SparseAdam", "ASGD", "Lion", "Adafactor"}
LOSS_FUNCTIONS = {"cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div",
                  "binary_cross_entropy", "binary_cross_entropy_with_logits", "gaussian_nll_loss", "poisson_nll_loss",
                  "cosine_embedding_loss", "margin_ranking_loss", "triplet_margin_loss", "ctc_loss",
                  "hinge_embedding_loss", "soft_margin_loss", "multilabel_margin_loss", "multi_margin_loss",
                  "multilabel_soft_margin_loss"}
STEP_SIZE_WORDS = re.compile(r"loss|grad|norm", re.I)
EPS_NAME = re.compile(r"(^|_)(eps|epsilon|tiny)(_|$)|^eps", re.I)
SMALL = 1e-3  # a positive constant at most this big, added or used as a floor, is an epsilon
GRAD_CLIPS = {"clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "clip_grad_value"}
LOSS_FAMILIES = {"nll": "crossentropy", "bcewithlogits": "bce", "binarycrossentropy": "bce",
                 "binarycrossentropywithlogits": "bce", "smoothl1": "huber"}
KINDS = ("nonfinite_guard", "nan_replace", "eps_floor", "value_clamp", "masked_division", "exception_swallow",
         "skip_step", "optimizer_swap", "loss_swap")


def loss_family(name: str) -> str:
    """``CrossEntropyLoss``, ``cross_entropy``, ``NLLLoss`` and ``nll_loss`` are one family."""
    key = name.lower().replace("_", "")
    key = key[:-4] if key.endswith("loss") else key
    return LOSS_FAMILIES.get(key, key)


@dataclass(frozen=True)
class Finding:
    """One construct: its kind, the enclosing function (``module`` at top level) and its source."""

    kind: str
    file: str
    scope: str
    code: str
    line: int

    def as_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "function": self.scope, "kind": self.kind, "code": self.code}


def _name(node) -> str:
    """The last name of a callee or attribute chain, as written: ``torch.nn.functional.mse_loss`` -> ``mse_loss``.
    The collector's ``_name`` also sees through imports and aliases; this one is for callers without a file."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _code(node) -> str:
    try:
        return ast.unparse(node)[:200]
    except Exception:  # noqa: BLE001 - unparse of a strange tree only loses the snippet
        return type(node).__name__


def _text(node, depth: int = 0) -> str | None:
    """The value of a constant string expression (``"nan_" + "to_num"``, ``f"{'Ad'}am"``), else None."""
    if depth > 8:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _text(node.left, depth + 1), _text(node.right, depth + 1)
        return None if a is None or b is None else a + b
    if isinstance(node, ast.JoinedStr):
        parts = [_text(v.value if isinstance(v, ast.FormattedValue) else v, depth + 1) for v in node.values]
        return None if any(p is None for p in parts) else "".join(parts)
    return None


def _getattr_constant(node) -> str | None:
    """``getattr(torch, "nan_" + "to_num")`` -> ``nan_to_num``: a constant attribute name is no disguise."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
            and len(node.args) >= 2):
        return _text(node.args[1])
    return None


def _stringified(node) -> bool:
    """``str(x)``, ``repr(x)``, ``f"{x}"``, ``format(x)``, ``x.__str__()``: a value written out as text."""
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(v, ast.FormattedValue) for v in node.values)
    return isinstance(node, ast.Call) and _name(node) in ("str", "repr", "format", "__str__", "__repr__", "__format__")


def _number(node, depth: int = 0) -> float | None:
    """The value of a numeric literal expression (``1e-8``, ``10 ** -8``, ``1 / 1e8``, ``float("1e-8")``), else None."""
    if depth > 6:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _number(node.operand, depth + 1)
        return None if v is None else (-v if isinstance(node.op, ast.USub) else v)
    if isinstance(node, ast.Call) and _name(node) == "float" and len(node.args) == 1:
        if isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            try:
                return float(node.args[0].value)
            except ValueError:
                return None
        return _number(node.args[0], depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div, ast.Pow)):
        a, b = _number(node.left, depth + 1), _number(node.right, depth + 1)
        if a is None or b is None:
            return None
        try:
            if isinstance(node.op, ast.Pow):
                return float(a ** b) if abs(b) <= 400 and a > 0 else None
            return a * b if isinstance(node.op, ast.Mult) else a / b
        except (ZeroDivisionError, OverflowError):
            return None
    return None
