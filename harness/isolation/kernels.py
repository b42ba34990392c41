"""Which SIMD kernels torch can run here, and which one it runs.

torch picks its CPU kernels at start-up from the CPU's flags (``default``, ``avx2``, ``avx512`` on
x86; only ``default`` elsewhere) and ``ATEN_CPU_CAPABILITY`` forces a lower one. Chaotic training
rounds differently under each, so a verdict must not depend on the level: ``validate --kernels``
runs the verifiers under several levels (docs/integrity.md, "Portable verdicts"). A level the CPU
lacks is never run: torch would die with SIGILL, which says nothing about the case.

The levels are read from ``/proc/cpuinfo`` the way torch's cpuinfo decides them; the native level
is asked of torch in a subprocess, lazily (importing torch in the harness costs a second and
180 MiB, and the CLI must not pay it on import).
"""

from __future__ import annotations

import functools
import os
import platform
import subprocess
import sys
from pathlib import Path

from harness.core.errors import ConfigError
from harness.models import CpuKernel

LEVELS = ("default", "avx2", "avx512")  # lowest first
ENV_VAR = "ATEN_CPU_CAPABILITY"
X86 = ("x86_64", "amd64", "i386", "i686")
# What torch's dispatcher requires for each level (ATen DispatchStub's compute_cpu_capability, via cpuinfo).
REQUIRED_FLAGS = {"avx2": {"avx2", "fma"}, "avx512": {"avx512f", "avx512bw", "avx512vl", "avx512dq", "fma"}}
RELEVANT_FLAGS = sorted(set().union(*REQUIRED_FLAGS.values()))


def cpu_flags(cpuinfo: str | None = None) -> set[str]:
    """The CPU's feature flags (``flags`` on x86, ``Features`` on ARM), from /proc/cpuinfo's first CPU."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return set()
    for line in cpuinfo.splitlines():
        name, _, value = line.partition(":")
        if name.strip() in ("flags", "Features"):
            return set(value.split())
    return set()


def supported_levels(flags: set[str] | None = None, machine: str | None = None) -> list[str]:
    """Levels torch can run on this CPU, lowest first: always ``default``; on x86 also ``avx2`` and
    ``avx512`` when the CPU has what torch requires for them."""
    machine = (machine or platform.machine()).lower()
    flags = cpu_flags() if flags is None else flags
    if machine not in X86:
        return ["default"]
    return ["default"] + [lvl for lvl in LEVELS[1:] if REQUIRED_FLAGS[lvl] <= flags]


@functools.lru_cache(maxsize=1)
def native_level() -> str:
    """torch's own choice on this CPU with nothing forced (lower case: ``avx512``, ``avx2``, ``default``,
    or another platform's name), asked of a fresh interpreter so the harness never imports torch."""
    env = {k: v for k, v in os.environ.items() if k != ENV_VAR}
    code = "import torch; print(torch.backends.cpu.get_cpu_capability())"
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    except (OSError, subprocess.SubprocessError) as exc:
        raise ConfigError(f"could not ask torch for its CPU capability: {exc}") from exc
    if proc.returncode != 0 or not proc.stdout.strip():
        raise ConfigError(f"could not ask torch for its CPU capability: {proc.stderr.strip()[-300:]}")
    return proc.stdout.strip().splitlines()[-1].lower()


def check_level(level: str, supported: list[str] | None = None) -> str:
    """``level`` if this CPU can run it; a ConfigError naming what it can run otherwise."""
    supported = supported_levels() if supported is None else supported
    if level not in LEVELS:
        raise ConfigError(f"unknown kernel level {level!r} (known: {', '.join(LEVELS)})")
    if level not in supported:
        raise ConfigError(f"this CPU cannot run torch's {level!r} kernels (torch would die with SIGILL); "
                          f"it supports {', '.join(supported)}")
    return level


def parse_levels(spec: str, supported: list[str] | None = None, native: str | None = None) -> list[str]:
    """``--kernels`` as a list of levels: ``default,avx2`` as given (each checked), or ``all``: every level
    the CPU supports up to and including the native one."""
    supported = supported_levels() if supported is None else supported
    if spec.strip().lower() == "all":
        native = native_level() if native is None else native
        upto = LEVELS.index(native) + 1 if native in LEVELS else 1
        return [lvl for lvl in LEVELS[:upto] if lvl in supported]
    levels = [part.strip().lower() for part in spec.split(",") if part.strip()]
    if not levels:
        raise ConfigError("--kernels names no level (give e.g. default,avx2 or all)")
    return list(dict.fromkeys(check_level(lvl, supported) for lvl in levels))


def describe(level: str | None = None) -> CpuKernel:
    """What a command runs under: ``level`` when given, else ``ATEN_CPU_CAPABILITY`` as passed through
    from the harness's environment, else torch's native choice."""
    flags = cpu_flags()
    forced = level or os.environ.get(ENV_VAR) or None
    native = native_level()
    return CpuKernel(level=(forced or native).lower(), native=native, aten_cpu_capability=forced,
                     supported=supported_levels(flags), flags=[f for f in RELEVANT_FLAGS if f in flags],
                     machine=platform.machine())
