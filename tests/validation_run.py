"""The validation that ``tests/test_case_validation.py`` reads, started as soon as collection ends.

The case validation is most of the suite's time and runs on every core; the other tests run one at a
time, mostly on one core. So the selected cases' validation starts in the background when collection
ends, one check at a time while the other tests use the other core, and widens to every core when
the validation tests are reached (``result``). Only the cases whose tests were selected are validated
(``pytest tests/test_case_validation.py -k case_01`` validates case_01 alone).
"""

from __future__ import annotations

import os
import threading

from harness.core.cases import find_root, load_cases
from harness.core.errors import BenchError
from harness.isolation.sandbox import get_sandbox
from harness.validation import validate as V

KERNELS = ["default"]  # every CPU has it: docs/integrity.md, "Portable verdicts"
_state: dict = {}


def _validate(case_ids: list[str], width) -> tuple[dict, dict]:
    """Every case that loads, validated in one call together with gold, broken and the README's output blocks
    again under ``default`` kernels; a case that does not load is its own failure (one unfinished case does
    not hide the others)."""
    root = find_root()
    cases, broken = [], {}
    for case_id in case_ids:
        try:
            cases += load_cases(root, [case_id])
        except BenchError as exc:
            broken[case_id] = str(exc)
    out = V.validate_cases(cases, root, get_sandbox("auto"), jobs=os.cpu_count() or 1, kernels=KERNELS,
                           kernel_scope="gold-broken", width=width)
    return out, broken


def start(case_ids: list[str]) -> None:
    """Begin validating ``case_ids`` in a background thread, one check at a time."""
    if _state:
        return
    _state.update(width=1, ids=list(case_ids))

    def run() -> None:
        try:
            _state["result"] = _validate(_state["ids"], lambda: _state["width"])
        except BaseException as exc:  # re-raised by result(), in the test that needs it
            _state["error"] = exc

    _state["thread"] = threading.Thread(target=run, name="case-validation", daemon=True)
    _state["thread"].start()


def result(case_ids: list[str]) -> tuple[dict, dict]:
    """The validation's checks per case and the cases that did not load; every core from now on."""
    if not _state:
        start(case_ids)
    _state["width"] = os.cpu_count() or 1
    _state["thread"].join()
    if "error" in _state:
        raise _state["error"]
    return _state["result"]


def stop() -> None:
    """Start no further check (the session is ending); the ones running finish."""
    if _state:
        _state["width"] = 0
