"""The validation that ``tests/test_case_validation.py`` reads, started as soon as collection ends.

The case validation is most of the suite's time and runs on every core; the other tests run one at a
time, mostly on one core. So the selected cases' validation starts in the background when collection
ends, one check at a time while the other tests use the other core, and widens to every core when
the validation tests are reached (``result``). Only the cases whose tests were selected are validated
(``pytest tests/test_case_validation.py -k case_01`` validates case_01 alone).

All of it does not fit the suite's hour on a 2-core CPU without AVX-512 (CI timed out inside it there, at
90 minutes), so a run checks (``Plan``):
- every selected case: the checks that run no training (leak scan, entry points, placeholders, sizes, the
  grep baseline, ...) and its portable verdicts, gold passes and broken fails under torch's ``default``
  kernels (every CPU has them), with the README's output blocks reproduced there;
- one case per tier drawn by the run's seed (at least two): every check, with a drawn few of their
  patch verdicts (corpus, recorded blind solves, generated verifier-recognising fixes).
The seed is the UTC day number unless given, so each day's runs check other cases and patches, and a
failure repeats under the seed the run's last lines print. ``ml-debug-bench validate --tier all`` (with
``--kernels default --kernels-scope gold-broken``) checks everything, as a release does.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections import defaultdict
from typing import NamedTuple

from harness.core.cases import find_root, load_cases, tier_of
from harness.core.errors import BenchError
from harness.isolation.sandbox import get_sandbox
from harness.validation import validate as V
from harness.validation.check_select import sample_names

KERNELS = ["default"]  # every CPU has it: docs/integrity.md, "Portable verdicts"
# The checks that train nothing: every selected case runs them on every run.
STATIC_CHECKS = {"leak_scan", "entry_points_exist", "stray_artifacts", "placeholders_filled", "corpus_size",
                 "over_fixes_named", "grep_baseline", "hard_size", "hard_construct_hits", "blind_solves_recorded",
                 "frontier_entry"}
_state: dict = {}


class Plan(NamedTuple):
    """What this run validates: ``deep`` cases in full (the rest: static checks and portable verdicts), with
    ``per_case`` patch verdicts each (None: every one), drawn by ``seed``."""

    deep: frozenset[str]
    per_case: int | None
    seed: int

    def select(self, case, names: list[str]) -> set[str]:
        if case.id not in self.deep:
            return {n for n in names if n in STATIC_CHECKS or n.startswith("kernel[")}
        return set(names) if self.per_case is None else sample_names(case.id, names, self.per_case, self.seed)

    def describe(self) -> str:
        patches = "every patch verdict" if self.per_case is None else f"{self.per_case} patch verdicts each"
        return (f"validated in full: {', '.join(sorted(self.deep)) or 'none'} ({patches}); every case: static checks "
                f"and gold/broken/README under default kernels. Seed {self.seed} (repeat: MLDB_VALIDATE_SEED="
                f"{self.seed}; everything: MLDB_VALIDATE_DEEP=all MLDB_VALIDATE_SAMPLE=all)")


def _count(name: str, default: str, all_allowed: bool = True) -> int | None:
    text = os.environ.get(name, default).strip().lower()
    if text == "all" and all_allowed:
        return None
    try:
        return int(text)
    except ValueError:
        raise SystemExit(f"{name}={text!r}: a number" + (" or 'all'" if all_allowed else "")) from None


def plan(case_ids: list[str]) -> Plan:
    """``MLDB_VALIDATE_DEEP`` cases in full (default: one per tier of the selected cases, at least 2; ``all``),
    each with ``MLDB_VALIDATE_SAMPLE`` patch verdicts (default 3; ``all``), drawn by ``MLDB_VALIDATE_SEED``
    (default: the UTC day number). When no more cases are selected than that, every one is validated in full."""
    by_tier: dict[str, list[str]] = defaultdict(list)
    for case_id in sorted(case_ids):
        by_tier[tier_of(case_id)].append(case_id)
    seed = _count("MLDB_VALIDATE_SEED", str(int(time.time() // 86400)), all_allowed=False)
    deep_n = _count("MLDB_VALIDATE_DEEP", str(max(2, len(by_tier))))
    per_case = _count("MLDB_VALIDATE_SAMPLE", "3")
    if deep_n is None or len(case_ids) <= deep_n:
        return Plan(frozenset(case_ids), per_case, seed)
    rng = random.Random(seed)
    pools = [rng.sample(ids, len(ids)) for _, ids in sorted(by_tier.items())]
    deep: list[str] = []
    while len(deep) < deep_n:
        for pool in pools:
            if pool and len(deep) < deep_n:
                deep.append(pool.pop())
    return Plan(frozenset(deep), per_case, seed)


def _validate(case_ids: list[str], width) -> tuple[dict, dict]:
    """The selected cases that load, validated in one call as ``_state["plan"]`` says; a case that does not
    load is its own failure (one unfinished case does not hide the others)."""
    root = find_root()
    cases, broken = [], {}
    for case_id in case_ids:
        try:
            cases += load_cases(root, [case_id])
        except BenchError as exc:
            broken[case_id] = str(exc)
    out = V.validate_cases(cases, root, get_sandbox("auto"), jobs=os.cpu_count() or 1, kernels=KERNELS,
                           kernel_scope="gold-broken", width=width, progress=_note, select=_state["plan"].select)
    return out, broken


def _note(chk) -> None:
    _state.setdefault("durations", []).append((chk.name, chk.duration_s or 0.0))


def start(case_ids: list[str]) -> None:
    """Begin validating ``case_ids`` in a background thread, one check at a time."""
    if _state:
        return
    _state.update(width=1, ids=list(case_ids), started=time.monotonic(), plan=plan(list(case_ids)))

    def run() -> None:
        try:
            _state["result"] = _validate(_state["ids"], lambda: _state["width"])
        except BaseException as exc:  # re-raised by result(), in the test that needs it
            _state["error"] = exc

    _state["thread"] = threading.Thread(target=run, name="case-validation", daemon=True)
    _state["thread"].start()


def current_plan() -> Plan:
    return _state["plan"]


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
    lines.append("  " + _state["plan"].describe())
    return lines
