"""What the judge is told about the right answer: the grading slice of an answer key.

Kept separate from ``AnswerKey`` because calibration sets (the seed benchmark, the
adversarial fixtures) carry keys without canaries, patches or verifiers.
"""

from __future__ import annotations

from pydantic import Field

from harness.core.hashing import sha256_text
from harness.models import AnswerKey, Record

DEFAULT_INSTRUMENTATION = AnswerKey.model_fields["instrumentation"].default


class JudgeKey(Record):
    root_cause: str
    discriminating_test: str
    requires_localization: bool
    paraphrases: list[str] = Field(default_factory=list, description="accepted wordings of the root cause")
    near_misses: list[str] = Field(default_factory=list, description="diagnoses that must FAIL")
    competitors: list[str] = Field(default_factory=list, description="hypotheses the test must separate")
    instrumentation: str = DEFAULT_INSTRUMENTATION
    locations: list[str] = Field(default_factory=list, description="where the bug is, e.g. "
                                                                   "'model.py:17-19 (Classifier.forward)'")

    @property
    def sha256(self) -> str:
        return sha256_text(self.model_dump_json())


def judge_key(key: AnswerKey) -> JudgeKey:
    """The grading facts of a case's answer key (never the canary, patches or verifier)."""
    return JudgeKey(
        root_cause=key.root_cause, discriminating_test=key.discriminating_test,
        requires_localization=key.requires_localization, paraphrases=key.paraphrases,
        near_misses=key.near_misses, competitors=key.competitors, instrumentation=key.instrumentation,
        locations=[f"{loc.file}:{loc.start_line}-{loc.end_line}" + (f" ({loc.symbol})" if loc.symbol else "")
                   for loc in key.locations],
    )
