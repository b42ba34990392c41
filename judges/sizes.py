"""How big the judge's input is, per sample and criterion, without calling any model."""

from __future__ import annotations

from pydantic import BaseModel

from harness.models import CRITERIA_LLM
from judges.compaction import compact
from judges.evidence import edit_candidates
from judges.key import JudgeKey
from judges.rubric import SYSTEM, Mode, build_prompt

CHARS_PER_TOKEN = 4  # rough, for English prose and code


class InputSize(BaseModel):
    name: str
    raw_chars: int  # all visible event text as recorded, before compaction
    transcript_chars: int  # the compacted transcript block
    prompt_chars: dict[str, int]  # system + user message, per criterion

    @property
    def total_chars(self) -> int:
        return sum(self.prompt_chars.values())

    @property
    def est_tokens(self) -> int:
        return self.total_chars // CHARS_PER_TOKEN

    def row(self) -> dict:
        return {"sample": self.name, "raw_chars": self.raw_chars, "transcript_chars": self.transcript_chars,
                **{f"{c}_chars": self.prompt_chars.get(c, "n/a") for c in CRITERIA_LLM},
                "total_chars": self.total_chars, "~tokens": self.est_tokens}


def input_size(name: str, events, key: JudgeKey, mode: Mode = "executed") -> InputSize:
    from judges.compaction import visible
    from judges.evidence import raw_text

    transcript = compact(events)
    prompts = {c: len(SYSTEM) + len(build_prompt(c, key, transcript, mode, edit_candidates(events)))
               for c in CRITERIA_LLM if c != "localization" or key.requires_localization}
    return InputSize(name=name, raw_chars=sum(len(raw_text(ev)) for ev in events if visible(ev)),
                     transcript_chars=len(transcript), prompt_chars=prompts)
