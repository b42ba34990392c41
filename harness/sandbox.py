"""Where agent commands run. The plain runner is the fallback; bubblewrap isolation plugs in here."""

from __future__ import annotations

from pathlib import Path

from harness.execution import ExecResult, base_env, run_argv


class PlainSandbox:
    """No isolation: a subprocess in the workspace with a timeout and a killed process group."""

    name = "none"

    def run(self, command: str, workspace: Path, timeout: float, output_cap: int) -> ExecResult:
        return run_argv(["bash", "-c", command], workspace, timeout, command=command,
                        env=base_env({"HOME": str(workspace)}), output_cap=output_cap)


def get_sandbox(mode: str = "auto"):
    """``auto``/``none`` -> plain subprocess (bubblewrap support is added by the sandbox module's users)."""
    return PlainSandbox()
