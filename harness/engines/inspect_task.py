"""The Inspect AI task ``ml_debug_bench``: one Sample per case (id = the case id), the case's files copied into
the sample's sandbox, our task prompt, a tool-loop solver (bash, edit_file, submit_report; the skill as a task
argument), and our graders as scorers (``inspect_scorers``); ``harness.engines.inspect_registry`` declares it as
``ml_debug_bench``::

    inspect eval ml_debug_bench/ml_debug_bench -T tier=standard --model openai/MODEL \\
        --model-role grader=openai/JUDGE_MODEL [-T sandbox=docker] [-T cases=case_01,case_07]

Needs the optional extra ``[inspect]``.
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task
from inspect_ai.dataset import Sample

from harness.core.cases import Case, find_root, load_cases
from harness.core.errors import ConfigError
from harness.engines.inspect_scorers import code_criteria, llm_criteria
from harness.engines.inspect_solver import debug_agent, skill_text

SANDBOX_DIR = Path(__file__).resolve().parent / "inspect_sandbox"
SANDBOXES = {"local": None, "docker": "compose.yaml", "k8s": "values.yaml"}
IGNORED = {".git", "__pycache__"}


def sandbox_spec(kind: str) -> str | tuple[str, str]:
    """``local`` (the machine Inspect runs on), ``docker`` (the shipped compose file and Dockerfile) or
    ``k8s`` (the shipped Helm values, for the inspect_k8s_sandbox package)."""
    if kind not in SANDBOXES:
        raise ConfigError(f"-T sandbox={kind!r}: expected one of {', '.join(SANDBOXES)}")
    config = SANDBOXES[kind]
    return kind if config is None else (kind, str(SANDBOX_DIR / config))


def case_files(case: Case) -> dict[str, str]:
    """Every file of the case folder (as the workspace copy has them), by path in the sandbox."""
    out = {}
    for path in sorted(case.case_dir.rglob("*")):
        rel = path.relative_to(case.case_dir)
        if path.is_file() and not IGNORED & set(rel.parts) and path.suffix != ".pyc":
            out[rel.as_posix()] = str(path)
    return out


def case_sample(case: Case) -> Sample:
    readme = (case.case_dir / "README.md").read_text(encoding="utf-8")
    return Sample(id=case.id, input=readme, files=case_files(case),
                  metadata={"case_id": case.id, "tier": case.tier, "readme": readme,
                            "entry_points": list(case.manifest.entry_points)})


def build_task(tier: str = "standard", cases: str | list[str] = "", sandbox: str = "local", skill: str = "",
                   max_turns: int = 50, command_timeout: int = 300, verify: bool = True,
                   verify_sandbox: str = "auto", judge_repeats: int = 1) -> Task:
    """ml-debug-bench's cases as an Inspect task (declared as ``ml_debug_bench/ml_debug_bench`` in
    ``harness.engines.inspect_registry``). ``cases``: ids separated by commas (default: the tier's);
    ``skill``: a markdown file or a folder with SKILL.md for the agent's system prompt; ``verify=false`` leaves
    fix_verified unscored (the hidden verifier trains the case's model: minutes per sample);
    ``verify_sandbox``: where that verifier runs on this machine (our ``--sandbox`` modes)."""
    root = find_root()
    chosen = load_cases(root, _ids(cases) or None, tier=tier)
    return Task(dataset=[case_sample(c) for c in chosen],
                solver=debug_agent(skill_text(skill or None), max_turns=max_turns, command_timeout=command_timeout),
                scorer=[code_criteria(verify=_flag(verify), sandbox_mode=verify_sandbox),
                        llm_criteria(repeats=judge_repeats)],
                sandbox=sandbox_spec(sandbox))


def _ids(value) -> list[str]:
    """-T cases=case_01,case_07 arrives as a list (Inspect parses -T values as YAML), or as one string."""
    items = value if isinstance(value, (list, tuple)) else str(value or "").split(",")
    return [str(c).strip() for c in items if str(c).strip()]


def _flag(value) -> bool:
    """-T values arrive parsed as YAML (true/false) or as strings."""
    return value if isinstance(value, bool) else str(value).strip().lower() not in ("0", "false", "no", "off")
