"""The base of every record: unknown fields are errors (``extra="forbid"``), so a typo in a case manifest or
answer key fails loudly, and text is made writable as UTF-8 on the way in."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator


def scrub_surrogates(value: Any) -> Any:
    """Replace lone UTF-16 surrogates (``"\\ud800"`` in a JSON string decodes to one) by ``?``.

    The agent controls text that reaches records (its report, its measurements echoed by a verifier,
    CLI log lines), and a str holding a lone surrogate cannot be encoded as UTF-8: writing the record
    would raise in the middle of a run. Scrubbing on the way in keeps every record writable."""
    if isinstance(value, str):
        if value.isascii():
            return value
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {scrub_surrogates(k): scrub_surrogates(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(scrub_surrogates(v) for v in value)
    return value


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _writable_text(cls, data: Any) -> Any:
        return scrub_surrogates(data) if isinstance(data, dict) else data
