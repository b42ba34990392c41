"""The run's manifest: the agent and settings, the hashes of every input, the sandbox, platform and provenance."""

from __future__ import annotations

import importlib.metadata
import platform
import subprocess
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path

from harness import __version__
from harness.core.cases import tiers_of
from harness.core.errors import ConfigError
from harness.core.hashing import sha256_tree
from harness.core.prompts import PROMPT_TEMPLATE_SHA256
from harness.models import CpuKernel, RunManifest
from harness.running.config import RunConfig


def _git_provenance(root: Path) -> dict:
    """The harness checkout's commit and whether it has local changes (nothing when not a checkout)."""
    def git(*args) -> str:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10,
                              check=True).stdout.strip()
    try:
        return {"git_commit": git("rev-parse", "HEAD"), "git_dirty": bool(git("status", "--porcelain"))}
    except (OSError, subprocess.SubprocessError):
        return {}


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "missing"


def provenance(cfg: RunConfig) -> dict:
    info = {**_git_provenance(Path(__file__).resolve().parents[2]),
            "openai": _version("openai"), "anthropic": _version("anthropic"),
            "order": cfg.order, "order_seed": cfg.order_seed,
            "max_parallel": cfg.max_parallel, "cpu_slots": cfg.cpu_slots,
            "tiers": tiers_of(c.id for c in cfg.cases)}
    cli_version = cfg.agent.settings.get("cli_version")
    if cli_version:
        info["agent_cli_version"] = cli_version
    return info


def kernel_of(sandbox) -> CpuKernel | None:
    """The kernel level the run's commands use (docs/integrity.md, "Portable verdicts"); None when torch
    cannot be asked (the run goes on; the manifest then says nothing rather than a guess)."""
    from harness.isolation.kernels import describe

    try:
        return describe(getattr(sandbox, "kernel", None))
    except ConfigError:
        return None


def build_manifest(cfg: RunConfig, run_id: str) -> RunManifest:
    # from package metadata: importing torch would cost a second and 180 MiB for one string
    torch_version = _version("torch")
    return RunManifest(
        run_id=run_id,
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        harness_version=__version__,
        agent=cfg.agent.name,
        agent_settings={**cfg.agent.settings, "limits": asdict(cfg.limits)},
        conditions=list(cfg.conditions),
        case_ids=[c.id for c in cfg.cases],
        epochs=cfg.epochs,
        case_sha256={c.id: sha256_tree(c.case_dir) for c in cfg.cases},
        answer_sha256={c.id: sha256_tree(c.answer_dir) for c in cfg.cases},
        inputs_sha256=dict(cfg.inputs.sha256) if cfg.inputs else {},
        prompt_template_sha256=PROMPT_TEMPLATE_SHA256,
        skill_sha256=cfg.skill_sha256,
        judge=cfg.judge.spec if cfg.judge else None,
        judge_prompt_sha256=cfg.judge.prompt_sha256 if cfg.judge else None,
        sandbox=cfg.sandbox.name,
        sandbox_details=cfg.sandbox.describe(),
        platform={"python": platform.python_version(), "torch": torch_version, "machine": platform.machine()},
        cpu_kernel=kernel_of(cfg.sandbox),
        provenance=provenance(cfg),
        options=cfg.options,
    )
