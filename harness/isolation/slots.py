"""CPU slots: however many samples run at once, at most ``n`` CPU-heavy commands do.

Agent commands, case runs and verifier processes all go through the sandbox, so the sandbox
each sample gets is wrapped: every command first takes a slot. The time a sample waits for one
is added to its ``SampleClock`` and not charged to its wall-clock budget, so a busy machine never
turns into a sample's ``limit_reached``.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager


class SampleClock:
    """A sample's elapsed time, minus what it spent waiting for a CPU slot."""

    def __init__(self):
        self.start = time.monotonic()
        self.waited = 0.0

    def elapsed(self) -> float:
        return time.monotonic() - self.start - self.waited


class CpuSlots:
    def __init__(self, n: int):
        if n < 1:
            raise ValueError("cpu slots must be at least 1")
        self.n = n
        self._sem = threading.Semaphore(n)
        self._lock = threading.Lock()
        self.in_use = 0
        self.peak = 0  # the most slots ever held at once (benchmarks check it never passes n)

    @contextmanager
    def hold(self, clock: SampleClock | None):
        t0 = time.monotonic()
        self._sem.acquire()
        if clock is not None:
            clock.waited += time.monotonic() - t0
        with self._lock:
            self.in_use += 1
            self.peak = max(self.peak, self.in_use)
        try:
            yield
        finally:
            with self._lock:
                self.in_use -= 1
            self._sem.release()


class SlottedSandbox:
    """One sample's view of the shared sandbox: same interface, each command inside a CPU slot."""

    def __init__(self, inner, slots: CpuSlots, clock: SampleClock | None = None):
        self.unslotted = inner  # for an agent CLI that mostly waits on its model: it takes no slot
        self.slots = slots
        self.clock = clock

    def __getattr__(self, name):  # name, describe(), reason, cgroups ... as the real sandbox has them
        return getattr(self.unslotted, name)

    def run(self, *args, **kwargs):
        with self.slots.hold(self.clock):
            return self.unslotted.run(*args, **kwargs)

    def run_argv(self, *args, **kwargs):
        with self.slots.hold(self.clock):
            return self.unslotted.run_argv(*args, **kwargs)
