"""What the importers of other engines' results share: the outcome of an import and the run manifest they write
(with the runner's own writer, ``write_manifest``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness import __version__
from harness.core.cases import Case, tiers_of
from harness.core.hashing import sha256_tree
from harness.core.prompts import PROMPT_TEMPLATE_SHA256
from harness.core.results import write_manifest
from harness.models import RunManifest, SampleResult
from harness.running.config import new_run_id


@dataclass
class ImportResult:
    run_dirs: list[Path] = field(default_factory=list)
    samples: list[SampleResult] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # what was left out, each naming its file and field


def start_run(out_root: Path, agent: str, cases: list[Case], condition: str, epochs: int, sandbox: str,
              engine: str, settings: dict[str, Any]) -> Path:
    """A new run folder with its manifest: the imported agent, the cases' and answers' hashes as of now."""
    run_id = new_run_id(agent)
    run_dir = Path(out_root).resolve() / run_id
    ids = sorted(c.id for c in cases)
    by_id = {c.id: c for c in cases}
    write_manifest(run_dir, RunManifest(
        run_id=run_id, created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        harness_version=__version__, agent=agent, agent_settings={"engine": engine, **settings},
        conditions=[condition], case_ids=ids, epochs=max(1, epochs),
        case_sha256={c: sha256_tree(by_id[c].case_dir) for c in ids},
        answer_sha256={c: sha256_tree(by_id[c].answer_dir) for c in ids},
        prompt_template_sha256=PROMPT_TEMPLATE_SHA256, sandbox=sandbox,
        provenance={"imported_from": engine, "tiers": tiers_of(ids)}))
    return run_dir
