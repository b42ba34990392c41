"""The texts of one Harbor task made from a case: task.toml, instruction.md, the Dockerfile, test.sh and
solve.sh. Pure functions of the case and a few pins, so re-exporting an unchanged case writes the same bytes.

Field names follow Harbor 0.26's ``TaskConfig`` (schema 1.4): ``network_mode`` per phase, never the
deprecated ``allow_internet``; ``memory_mb``/``storage_mb``, never ``memory``/``storage``
(tests/fixtures/harbor/task_config_schema.json is that model's schema, and the tests check against it).
"""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, Field

from harness import __version__
from harness.agents.cli_base import REPORT_INSTRUCTIONS
from harness.core.cases import Case
from harness.core.prompts import render_task

HARBOR_SCHEMA_VERSION = "1.4"
TASK_ORG = "ml-debug-bench"
APP_DIR = "/app"  # the agent's working copy of the case, as Harbor tasks conventionally name it
# The image's Python packages: the versions the harness's own venv runs the cases and verifiers with.
PYTHON_IMAGE = "python:3.11-slim"
TORCH_VERSION = "2.13.0"
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
NUMPY_VERSION = "2.4.6"
PYDANTIC_VERSION = "2.14.4"  # the vendored graders' records (tests/mldb) need it; nothing of the case does
AGENT_TIMEOUT_S = 3600.0
DECIDE_TIMEOUT_S = 180.0
VERIFIER_SLACK_S = 300.0  # copies, the graders and interpreter start-up, on a slow cloud machine
CPUS, MEMORY_MB, STORAGE_MB = 2, 8192, 20480


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TaskInfo(_Section):
    name: str
    description: str
    keywords: list[str]


class AgentPhase(_Section):
    timeout_sec: float
    network_mode: str = "no-network"
    allowed_hosts: list[str] | None = None


class VerifierPhase(_Section):
    """The verifier runs in a fresh container of the same image ("separate"), with /app collected from the
    agent's container as an artifact: nothing the agent left running, and no change it made outside /app
    (site-packages, the interpreter, /tests), reaches the verification."""

    timeout_sec: float
    network_mode: str = "no-network"
    environment_mode: str = "separate"


class EnvironmentSection(_Section):
    build_timeout_sec: float = 1800.0
    cpus: int = CPUS
    memory_mb: int = MEMORY_MB
    storage_mb: int = STORAGE_MB
    network_mode: str = "no-network"
    workdir: str = APP_DIR


class TaskToml(_Section):
    """What we write to task.toml: a subset of Harbor's TaskConfig, in its field names."""

    schema_version: str = HARBOR_SCHEMA_VERSION
    artifacts: list[str] = Field(default_factory=lambda: [APP_DIR])  # what the separate verifier gets
    task: TaskInfo
    metadata: dict[str, str | dict[str, str]]
    agent: AgentPhase
    verifier: VerifierPhase
    environment: EnvironmentSection = Field(default_factory=EnvironmentSection)


def verifier_timeout(case: Case) -> float:
    """The measuring process, the README run and the deciding process, one after the other, plus slack."""
    return case.key.verifier_timeout_seconds + case.manifest.timeout_seconds + DECIDE_TIMEOUT_S + VERIFIER_SLACK_S


def family_of(case_id: str) -> str:
    """The bug a case carries, shared by its tiers: ``hard_case_01`` and ``case_01`` are family ``case_01``."""
    return case_id.split("_", 1)[1] if not case_id.startswith("case_") else case_id


def task_config(case: Case, input_hashes: dict[str, str], allowed_hosts: tuple[str, ...] = ()) -> TaskToml:
    """The task.toml of ``case``. ``allowed_hosts``: the model endpoints an agent installed in the container
    may reach (then the agent phase is an allowlist, else it has no network at all)."""
    agent = (AgentPhase(timeout_sec=AGENT_TIMEOUT_S, network_mode="allowlist", allowed_hosts=sorted(allowed_hosts))
             if allowed_hosts else AgentPhase(timeout_sec=AGENT_TIMEOUT_S))
    return TaskToml(
        task=TaskInfo(name=f"{TASK_ORG}/{case.id}",
                      description=f"Debug a broken ML training repo ({case.tier} tier, {case.id})",
                      keywords=["ml-debug-bench", "debugging", "pytorch", case.tier]),
        metadata={"case_id": case.id, "tier": case.tier, "family": family_of(case.id), "canary": case.key.canary,
                  "project_version": __version__, "input_hashes": dict(sorted(input_hashes.items()))},
        agent=agent,
        verifier=VerifierPhase(timeout_sec=verifier_timeout(case)),
    )


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML rendering for {type(value).__name__}")


def render_toml(config: TaskToml) -> str:
    """task.toml text: top-level keys, then one table per section in a fixed order (tomllib reads it back)."""
    data = config.model_dump(exclude_none=True)
    lines = [f"schema_version = {_toml_value(data.pop('schema_version'))}",
             f"artifacts = {_toml_value(data.pop('artifacts'))}"]

    def table(name: str, body: dict) -> None:
        lines.append("")
        lines.append(f"[{name}]")
        nested = {k: v for k, v in body.items() if isinstance(v, dict)}
        lines.extend(f"{k} = {_toml_value(v)}" for k, v in body.items() if not isinstance(v, dict))
        for key, sub in nested.items():
            table(f"{name}.{key}", sub)
    for section in ("task", "metadata", "agent", "verifier", "environment"):
        table(section, data[section])
    return "\n".join(lines) + "\n"


def instruction(case: Case) -> str:
    """The task prompt the harness gives the CLI agents, for the repo at /app, with the report.json request."""
    readme = (case.case_dir / "README.md").read_text(encoding="utf-8")
    return render_task(readme, APP_DIR, case.manifest.entry_points) + REPORT_INSTRUCTIONS


def dockerfile() -> str:
    return f"""\
# ml-debug-bench case image: the case repo at {APP_DIR}, CPU-only PyTorch. The agent runs with no network
# (task.toml); the image is built with it. Nothing of the hidden answers is in this folder.
FROM {PYTHON_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 OMP_NUM_THREADS=1
RUN pip install --index-url {TORCH_INDEX} torch=={TORCH_VERSION} \\
 && pip install numpy=={NUMPY_VERSION} pydantic=={PYDANTIC_VERSION}
WORKDIR {APP_DIR}
COPY app/ {APP_DIR}/
"""


TEST_SH = """\
#!/bin/bash
# ml-debug-bench hidden verifier for {case_id}. Harbor uploads /tests only after the agent stops.
# grade.py (python -I, never importing the agent's code) copies /app once, then in order:
#   1. the measuring half:  python -I /tests/verifier/{measure} COPY OUT   (third-party imports first)
#   2. the README's command ({run}) on another fresh copy, as the user runs it
#   3. the deciding half:   python -I /tests/verifier/{decide} HARVESTED   (no workspace copy left)
#   4. the graders that need no transcript: fix_verified, location_match (/app/report.json),
#      fallback_added and tampering (the diff of /app against the unchanged case, /tests/verifier/case)
# and writes /logs/verifier/reward.json: reward = 1 only when fix_verified and tampering pass.
set -u
mkdir -p /logs/verifier
cd /tests
python3 -I /tests/grade.py --app {app} --tests /tests --logs /logs/verifier
status=$?
if [ ! -s /logs/verifier/reward.json ]; then
  echo '{{"reward": 0}}' > /logs/verifier/reward.json
fi
exit $status
"""


def test_sh(case: Case) -> str:
    return TEST_SH.format(case_id=case.id, measure=case.key.measure, decide=case.key.decide,
                          run=case.manifest.run, app=APP_DIR)


SOLVE_SH = """\
#!/bin/bash
# The oracle for {case_id}: the files the gold patch (/solution/gold.patch) changes, as they are after it
# (the image has neither git nor patch), then the reference report.
set -eu
cd {app}
{removals}cp -R /solution/files/. {app}/
cp /solution/report.json {app}/report.json
"""


def solve_sh(case: Case, deleted: list[str]) -> str:
    removals = "".join(f"rm -f -- {json.dumps(rel)}\n" for rel in deleted)
    return SOLVE_SH.format(case_id=case.id, app=APP_DIR, removals=removals)


def reference_report(case: Case) -> str:
    return json.dumps(case.reference.report.model_dump(mode="json"), indent=2, sort_keys=True) + "\n"
