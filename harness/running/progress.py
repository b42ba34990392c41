"""Progress of a run, for people: a live display on a terminal, plain lines otherwise.

The runner calls ``started`` from worker threads and ``finished`` from its main thread; both
displays take a lock, so lines never interleave.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from harness.core.criteria import names as criteria_names
from harness.models import SampleResult

LIMIT_STATUS = "limit_reached"
ERROR_STATUSES = ("agent_error", "infra_error")


@dataclass
class Tally:
    total: int = 0
    done: int = 0
    errors: int = 0
    limits: int = 0
    running: dict[str, float] = field(default_factory=dict)  # label -> start time

    def count(self, result: SampleResult) -> None:
        self.done += 1
        self.errors += result.status in ERROR_STATUSES
        self.limits += result.status == LIMIT_STATUS


def describe(result: SampleResult) -> str:
    """One sample's outcome in a line: status, time, the deterministic marks, spend and any error."""
    v, u = result.verdicts, result.usage
    marks = ", ".join(f"{c} {v[c].status}" for c in criteria_names(progress=True) if c in v)
    spend = (f", {u.input_tokens + u.output_tokens} tokens" + (f", ${u.cost_usd:.4f}" if u.cost_usd is not None else "")
             ) if u.input_tokens else ""
    wait = f", waited {result.cpu_wait_s:.0f}s for CPU" if result.cpu_wait_s >= 1 else ""
    text = f"{result.status} in {result.duration_s:.1f}s ({marks}{spend}{wait})"
    return text + (f" — {result.error}" if result.error else "")


class PlainProgress:
    """One line when a sample starts and one when it ends, with the running counts."""

    def __init__(self, console):
        self.console = console
        self.tally = Tally()
        self._lock = threading.Lock()

    def begin(self, total: int, already_done: int = 0) -> None:
        self.tally = Tally(total=total)
        if already_done:
            self.console.print(f"{already_done} sample(s) already done; {total} to run", markup=False)

    def started(self, label: str) -> None:
        with self._lock:
            self.tally.running[label] = time.monotonic()
            self.console.print(f"[start] {label}", markup=False, highlight=False)

    def finished(self, label: str, result: SampleResult | None, note: str = "") -> None:
        with self._lock:
            self.tally.running.pop(label, None)
            if result is not None:
                self.tally.count(result)
            t = self.tally
            what = describe(result) if result is not None else note
            self.console.print(f"[{t.done}/{t.total}] {label}: {what} (errors {t.errors}, limits {t.limits})",
                               markup=False, highlight=False)

    def close(self) -> None:
        pass


class LiveProgress(PlainProgress):
    """An overall bar with ETA, a line per running sample, live error and limit counts (rich)."""

    def begin(self, total: int, already_done: int = 0) -> None:
        from rich.live import Live
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        super().begin(total, already_done)
        self.bar = Progress(TextColumn("samples"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            TextColumn("ETA"), TimeRemainingColumn(), TextColumn("{task.fields[counts]}"))
        self.task = self.bar.add_task("run", total=total, counts="")
        self.live = Live(self._render(), console=self.console, refresh_per_second=4, transient=False,
                         get_renderable=self._render)
        self.live.start()

    def _render(self):
        from rich.console import Group
        from rich.text import Text

        now = time.monotonic()
        lines = [Text(f"  running {label} ({now - t0:.0f}s)") for label, t0 in sorted(self.tally.running.items())]
        return Group(self.bar, *lines)

    def started(self, label: str) -> None:
        with self._lock:
            self.tally.running[label] = time.monotonic()

    def finished(self, label: str, result: SampleResult | None, note: str = "") -> None:
        with self._lock:
            self.tally.running.pop(label, None)
            if result is not None:
                self.tally.count(result)
            t = self.tally
            self.bar.update(self.task, completed=t.done, counts=f"errors {t.errors} · limits {t.limits}")
            what = describe(result) if result is not None else note
            self.live.console.print(f"{label}: {what}", markup=False, highlight=False)

    def close(self) -> None:
        self.live.stop()


class SilentProgress(PlainProgress):
    def __init__(self):
        super().__init__(console=None)

    def begin(self, total: int, already_done: int = 0) -> None:
        self.tally = Tally(total=total)

    def started(self, label: str) -> None:
        pass

    def finished(self, label: str, result: SampleResult | None, note: str = "") -> None:
        if result is not None:
            self.tally.count(result)
