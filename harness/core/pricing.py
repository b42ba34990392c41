"""Per-model prices in $ per million tokens, so every call's cost (agent and judge) can be recorded and budgeted.

The built-in table is a convenience, not an authority. It was written on 2026-12-04 (``PRICES_TAKEN``)
**from memory** of the providers' public price pages (openai.com/api/pricing, anthropic.com/pricing),
not copied from them that day: check it against the pages before trusting a dollar figure, and override or
extend it with a TOML file (``--prices``)::

    [models."my-model"]
    input = 0.5          # $ per million uncached input tokens
    output = 1.5         # $ per million output tokens
    cache_read = 0.05    # $ per million input tokens read from the prompt cache (optional)
    cache_write = 0.625  # $ per million input tokens written to the cache (optional; Anthropic charges it)

Cache reads and writes are priced at their own rates. A model with no price, or a call that reports cache
tokens of a kind whose rate the table lacks, gets ``cost: null`` (its tokens are still recorded): never a
guess, never a crash.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from harness.core.cases import load_record

PRICES_TAKEN = "2026-12-04"
PRICES_SOURCE = ("written from memory of the providers' public price pages (openai.com/api/pricing, "
                 "anthropic.com/pricing), not checked against them; override with --prices")


class Price(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input: float = Field(ge=0, description="$ per million uncached input tokens")
    output: float = Field(ge=0, description="$ per million output tokens")
    cache_read: float | None = Field(default=None, ge=0, description="$ per million cache-read input tokens")
    cache_write: float | None = Field(default=None, ge=0, description="$ per million cache-write input tokens")

    def cost(self, input_tokens: int, output_tokens: int, cache_read_tokens: int = 0,
             cache_write_tokens: int = 0) -> float | None:
        """``input_tokens`` is every input token (cached ones included, as both APIs count them here); the
        cached parts are priced at their own rates. None when a cached part has no rate."""
        if (cache_read_tokens and self.cache_read is None) or (cache_write_tokens and self.cache_write is None):
            return None
        uncached = max(0, input_tokens - cache_read_tokens - cache_write_tokens)
        return (uncached * self.input + output_tokens * self.output + cache_read_tokens * (self.cache_read or 0)
                + cache_write_tokens * (self.cache_write or 0)) / 1_000_000


class PriceFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    models: dict[str, Price] = Field(default_factory=dict)


def _openai(inp: float, cached: float, out: float) -> Price:
    """OpenAI bills no cache write (it reports none): a write is an ordinary input token."""
    return Price(input=inp, output=out, cache_read=cached, cache_write=inp)


def _anthropic(inp: float, out: float) -> Price:
    """Anthropic: a 5-minute cache write at 1.25× input, a cache read at 0.1× input."""
    return Price(input=inp, output=out, cache_read=round(inp * 0.1, 6), cache_write=round(inp * 1.25, 6))


# From memory, on PRICES_TAKEN (see the module docstring); --prices overrides any row.
BUILTIN_PRICES: dict[str, Price] = {
    "gpt-4o": _openai(2.5, 1.25, 10.0),
    "gpt-4o-mini": _openai(0.15, 0.075, 0.6),
    "gpt-4.1": _openai(2.0, 0.5, 8.0),
    "gpt-4.1-mini": _openai(0.4, 0.1, 1.6),
    "gpt-4.1-nano": _openai(0.1, 0.025, 0.4),
    "o3": _openai(2.0, 0.5, 8.0),
    "o4-mini": _openai(1.1, 0.275, 4.4),
    "gpt-5": _openai(1.25, 0.125, 10.0),
    "gpt-5-mini": _openai(0.25, 0.025, 2.0),
    "claude-opus-4": _anthropic(15.0, 75.0),
    "claude-opus-4-1": _anthropic(15.0, 75.0),
    "claude-opus-4-5": _anthropic(5.0, 25.0),
    "claude-sonnet-4": _anthropic(3.0, 15.0),
    "claude-sonnet-4-5": _anthropic(3.0, 15.0),
    "claude-3-5-haiku": _anthropic(0.8, 4.0),
    "claude-haiku-4-5": _anthropic(1.0, 5.0),
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


def unknown_price_warning(who: str, model: str) -> str:
    return (f"no price for {who} model '{model}': its tokens are recorded with cost null (add "
            f"[models.\"{model}\"] to a price file and pass --prices)")
