"""``ml-debug-bench new-case case_NN [--tier ...]``: every file a case needs, runnable, with placeholders.

The scaffold loads as a case at once (so ``validate`` can run on it from the first minute) and fails
``validate`` until every ``SCAFFOLD-PLACEHOLDER`` is replaced (``placeholders_filled`` names each file). The
walk-through from here to a green ``validate`` is in docs/cases.md, "Adding a case, step by step".
"""

from __future__ import annotations

import re
import secrets
from pathlib import Path

from harness.core.cases import CASE_ID, FRONTIER_PREFIX, HARD_PREFIX, HARDENED_TIERS, TIERS, tier_of
from harness.core.errors import ConfigError
from harness.validation import scaffold_templates as T

PREFIX = {"standard": "", "hard": HARD_PREFIX, "frontier": FRONTIER_PREFIX}


def case_id_for(name: str, tier: str) -> str:
    """``case_11`` + ``--tier hard`` -> ``hard_case_11``; an id that already says its tier must agree with it."""
    if tier not in TIERS:
        raise ConfigError(f"--tier must be one of {', '.join(TIERS)}, not {tier!r}")
    bare = re.sub(r"^(hard_|frontier_)", "", name)
    if not re.fullmatch(r"case_\d\d", bare):
        raise ConfigError(f"{name!r} is not a case id: case_NN (two digits), optionally hard_/frontier_")
    if bare != name and tier_of(name) != tier and tier != "standard":
        raise ConfigError(f"{name!r} is a {tier_of(name)} id, but --tier is {tier}")
    case_id = name if bare != name else PREFIX[tier] + bare
    assert CASE_ID.match(case_id)
    return case_id


def scaffold_files(case_id: str) -> dict[str, str]:
    """Path (relative to the project root) -> text, for every file of a new case."""
    tier = tier_of(case_id)
    canary = f"MLDB-CANARY-{case_id}-{secrets.token_hex(8)}"
    key = T.KEY_TOML + (T.HARDNESS_TOML.replace("__TIER__", tier) if tier in HARDENED_TIERS else "")
    files = {
        f"cases/{case_id}/README.md": T.README,
        f"cases/{case_id}/case.toml": T.CASE_TOML,
        f"cases/{case_id}/train.py": T.TRAIN_PY,
        f"answers/{case_id}/key.toml": key,
        f"answers/{case_id}/gold.patch": T.GOLD_PATCH,
        f"answers/{case_id}/overfix_placeholder.patch": T.OVERFIX_PATCH,
        f"answers/{case_id}/measure.py": T.MEASURE_PY,
        f"answers/{case_id}/decide.py": T.DECIDE_PY,
        f"answers/{case_id}/symptoms.toml": T.SYMPTOMS_TOML,
        f"answers/{case_id}/reference.toml": T.REFERENCE_TOML,
        f"answers/{case_id}/fixes/fixes.toml": T.FIXES_TOML,
    }
    return {path: text.replace("__CASE_ID__", case_id).replace("__CANARY__", canary) for path, text in files.items()}


def new_case(root: Path, name: str, tier: str = "standard") -> tuple[str, list[Path]]:
    """Write a new case's files under ``root``; refuses to touch a case that exists. Returns its id and files."""
    case_id = case_id_for(name, tier)
    for folder in (root / "cases" / case_id, root / "answers" / case_id):
        if folder.exists():
            raise ConfigError(f"{folder} already exists: new-case never overwrites a case")
    written = []
    for rel, text in scaffold_files(case_id).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return case_id, written
