"""The labeled-set format for judge meta-evaluation: JSONL, one transcript with human labels a line.

A line is a ``LabeledItem``: the transcript events (the same records as a run's
transcripts), the key the judge grades against, each rater's label per criterion and, for
sets labelled by hand, the rater's short reason for each label. A set is one ``.jsonl``
file or a folder of them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError, model_validator

from harness.core.errors import InputError
from harness.core.hashing import sha256_text
from harness.models import Event, Record
from judges.key import JudgeKey
from judges.rubric import Mode

Label = Literal["pass", "fail", "not_applicable"]


class LabeledItem(Record):
    id: str
    mode: Mode = Field(default="executed", description="'proposed' for a written plan without tool access")
    agent: str | None = Field(default=None, description="who produced the transcript (for the family warning)")
    condition: str | None = Field(default=None, description="kept for analysis; never shown to the judge")
    key: JudgeKey
    events: list[Event]
    labels: dict[str, dict[str, Label]] = Field(description="rater -> criterion -> label")
    reasons: dict[str, dict[str, str]] = Field(default_factory=dict,
                                               description="rater -> criterion -> why that label (hand-labelled sets)")
    notes: str = ""

    @model_validator(mode="after")
    def _reasons_match_labels(self):
        for rater, why in self.reasons.items():
            unlabelled = sorted(set(why) - set(self.labels.get(rater, {})))
            if unlabelled:
                raise ValueError(f"reasons for {rater} name criteria it did not label: {', '.join(unlabelled)}")
        return self

    @property
    def transcript_sha256(self) -> str:
        return sha256_text("\n".join(ev.model_dump_json() for ev in self.events))


def write_labeled_set(path: Path, items: list[LabeledItem]) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text("".join(i.model_dump_json() + "\n" for i in items), encoding="utf-8")
    tmp.replace(path)


def read_labeled_set(path: Path) -> list[LabeledItem]:
    path = Path(path)
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not files or not files[0].is_file():
        raise InputError(path, "no labeled set here (a .jsonl file or a folder of them)")
    items, seen = [], set()
    for f in files:
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                item = LabeledItem.model_validate(json.loads(line))
            except (json.JSONDecodeError, ValidationError) as exc:
                raise InputError(f, f"line {n} is not a labeled item: {str(exc).splitlines()[0]}") from exc
            if item.id in seen:
                raise InputError(f, f"line {n}: duplicate id '{item.id}'", "id")
            seen.add(item.id)
            items.append(item)
    return items
