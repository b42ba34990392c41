"""How big the judge's input is, per sample and criterion, without calling any model.

Measured on the very view the judge would get (same compaction, same cap), so ``--dry-run``
shows what the cap costs: the characters cut and whether a transcript still exceeds it.
"""

from __future__ import annotations

from pydantic import BaseModel

from harness.core.criteria import names as criteria_names
from judges.compaction import compact, submit_calls_with_report, visible
from judges.evidence import edit_events, raw_text
from judges.hunks import list_hunks, render_hunks
from judges.key import JudgeKey
from judges.rubric import (
    CHARS_PER_TOKEN,
    DEFAULT_MAX_INPUT_TOKENS,
    SYSTEM,
    Mode,
    build_prompt,
    criteria_for,
    transcript_budget,
)

EVAL_CRITERIA = criteria_names(judge_eval=True)  # fallback_added: asked only for written plans


class InputSize(BaseModel):
    name: str
    raw_chars: int  # all visible event text as recorded, before compaction
    transcript_chars: int  # the compacted transcript block
    cut_chars: int  # content characters left out of it (head/tail elision and the cap)
    prompt_chars: dict[str, int]  # system + user message, per criterion
    cap_tokens: int | None  # the per-prompt input cap (None: uncapped)

    @property
    def total_chars(self) -> int:
        return sum(self.prompt_chars.values())

    @property
    def est_tokens(self) -> int:
        """The largest prompt, in estimated tokens (the cap applies per prompt)."""
        return max(self.prompt_chars.values(), default=0) // CHARS_PER_TOKEN

    @property
    def over_cap(self) -> bool:
        return self.cap_tokens is not None and self.est_tokens > self.cap_tokens

    def row(self) -> dict:
        return {"sample": self.name, "raw_chars": self.raw_chars, "transcript_chars": self.transcript_chars,
                "cut_chars": self.cut_chars,
                **{f"{c}_chars": self.prompt_chars.get(c, "n/a") for c in EVAL_CRITERIA},
                "~tokens/prompt": self.est_tokens, "cap": self.cap_tokens or "none",
                "over_cap": "yes" if self.over_cap else "no"}


def input_size(name: str, events, key: JudgeKey, mode: Mode = "executed",
               max_input_tokens: int | None = DEFAULT_MAX_INPUT_TOKENS) -> InputSize:
    edits = edit_events(events)
    hunks = render_hunks(list_hunks(events, key.locations)) if mode == "executed" else ""
    view = compact(events, transcript_budget(key, mode, edits, max_input_tokens, hunks))
    prompts = {c: len(SYSTEM) + len(build_prompt(c, key, view.text, mode, edits, "0" * 16, hunks))
               for c in criteria_for(mode) if c != "localization" or key.requires_localization}
    hidden = submit_calls_with_report(events)
    return InputSize(name=name, raw_chars=sum(len(raw_text(ev)) for ev in events if visible(ev, hidden)),
                     transcript_chars=len(view.text), cut_chars=view.cut_chars, prompt_chars=prompts,
                     cap_tokens=max_input_tokens)
