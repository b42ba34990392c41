"""Per-model prices in $ per million tokens, so a sample's cost can be recorded and budgeted.

The built-in table is a convenience, not an authority: prices change, so users extend or
override it with a TOML file (``--prices``)::

    [models."my-model"]
    input = 0.5     # $ per million input tokens
    output = 1.5    # $ per million output tokens

A model with no price gets ``cost: null`` (its tokens are still recorded); it never crashes.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from harness.core.cases import load_record


class Price(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input: float = Field(ge=0, description="$ per million input tokens")
    output: float = Field(ge=0, description="$ per million output tokens")

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


class PriceFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    models: dict[str, Price] = Field(default_factory=dict)


# List prices when this table was written; override with --prices when they change.
BUILTIN_PRICES: dict[str, Price] = {
    "gpt-4o": Price(input=2.5, output=10.0),
    "gpt-4o-mini": Price(input=0.15, output=0.6),
    "gpt-4.1": Price(input=2.0, output=8.0),
    "gpt-4.1-mini": Price(input=0.4, output=1.6),
    "o4-mini": Price(input=1.1, output=4.4),
    "claude-opus-4": Price(input=15.0, output=75.0),
    "claude-sonnet-4": Price(input=3.0, output=15.0),
    "claude-3-5-haiku": Price(input=0.8, output=4.0),
}


class PriceTable:
    """Exact model names first, then the longest known name the model starts with followed by
    '-' (so dated snapshots like ``claude-sonnet-4-20250514`` find ``claude-sonnet-4``)."""

    def __init__(self, prices: dict[str, Price] | None = None):
        self.prices = dict(BUILTIN_PRICES if prices is None else prices)

    def lookup(self, model: str) -> Price | None:
        if model in self.prices:
            return self.prices[model]
        prefixes = [k for k in self.prices if model.startswith(k + "-")]
        return self.prices[max(prefixes, key=len)] if prefixes else None

    def extend(self, path: Path) -> "PriceTable":
        """Add (or override) prices from a TOML file; bad input names the file and field."""
        parsed = load_record(Path(path), PriceFile)
        self.prices.update(parsed.models)
        return self
