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
import time
from collections import defaultdict

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
                           kernel_scope="gold-broken", width=width, progress=_note)
    return out, broken


def _note(chk) -> None:
    _state.setdefault("durations", []).append((chk.name, chk.duration_s or 0.0))


def start(case_ids: list[str]) -> None:
    """Begin validating ``case_ids`` in a background thread, one check at a time."""
    if _state:
        return
    _state.update(width=1, ids=list(case_ids), started=time.monotonic())

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
    _state["widened"] = time.monotonic()
    _state["thread"].join()
    _state["ended"] = time.monotonic()
    if "error" in _state:
        raise _state["error"]
    return _state["result"]


def stop() -> None:
    """Start no further check (the session is ending); the ones running finish."""
    if _state:
        _state["width"] = 0


def summary() -> list[str]:
    """Lines for the end of the test run: where the validation's time went on this machine (the figures
    bench/validation_time.md is measured against), or nothing when no validation ran."""
    if "ended" not in _state:
        return []
    by_kind: dict[str, list[float]] = defaultdict(list)
    for name, seconds in _state.get("durations", []):
        kind = name.split(":")[0] if not name.startswith("kernel[") else name.split(":")[0] + ":" + name.split(":")[1]
        by_kind[kind].append(seconds)
    total = sum(sum(v) for v in by_kind.values())
    lines = [f"case validation: {len(_state['ids'])} cases, {sum(map(len, by_kind.values()))} checks, "
             f"{total:,.0f} s of check time; {_state['widened'] - _state['started']:,.0f} s beside the other tests "
             f"on one core, then {_state['ended'] - _state['widened']:,.0f} s on {os.cpu_count()} cores"]
    for kind, ds in sorted(by_kind.items(), key=lambda kv: -sum(kv[1]))[:12]:
        lines.append(f"  {kind:<44} {len(ds):>4} checks {sum(ds):>8,.0f} s")
    return lines
