"""The judge's side of the model APIs: one structured answer (a pydantic model) per call.

The client, errors and usage are the shared ``harness.core.providers``; the judge (``judges.llm``) calls this.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import pydantic

from harness.core.providers import ProviderError, Usage, _call, usage_of  # noqa: F401

CACHE_CONTROL = {"type": "ephemeral"}


def tool_name(schema: type[pydantic.BaseModel]) -> str:
    """The Anthropic tool that records an answer of ``schema``:
    ``LocalizationAnswer`` -> ``record_localization_answer``."""
    return "record_" + re.sub(r"(?<!^)(?=[A-Z])", "_", schema.__name__).lower()


@dataclass
class Structured:
    """One structured reply: the parsed answer, or the problem with it; usage either way."""

    parsed: pydantic.BaseModel | None
    problem: str | None
    usage: Usage = field(default_factory=Usage)


@dataclass(frozen=True)
class SamplingSettings:
    temperature: float | None = 0.0
    seed: int | None = 0  # OpenAI only: this Messages API takes neither seed nor temperature
    max_tokens: int = 4096


def schema_problem(exc: Exception) -> str:
    """A short, model-readable account of a schema violation."""
    if isinstance(exc, pydantic.ValidationError):
        return "; ".join(f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in exc.errors()[:5])
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def inline_refs(schema: dict) -> dict:
    """A JSON schema with ``$defs`` references inlined (tool input schemas are simpler that way)."""
    defs = schema.get("$defs", {})

    def walk(node):
        if isinstance(node, dict):
            if "$ref" in node:
                return walk(copy.deepcopy(defs[node["$ref"].rsplit("/", 1)[-1]]))
            return {k: walk(v) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(schema)


class OpenAIStructured:
    """Chat Completions ``parse`` with a pydantic response_format. Neither SDK re-asks on a schema
    violation, so this only reports what came back and the caller owns the bounded re-ask."""

    provider = "openai"

    def __init__(self, client, model: str, settings: SamplingSettings):
        self.client, self.model, self.settings = client, model, settings

    def start(self, system: str, prefix: str, tail: str = "") -> list[dict]:
        """Nothing to mark: the cache is automatic on a byte-identical prefix (``prefix`` + ``tail`` is sent whole)."""
        return [{"role": "system", "content": system}, {"role": "user", "content": prefix + tail}]

    def ask(self, messages: list[dict], schema: type[pydantic.BaseModel],
            offered: Sequence[type[pydantic.BaseModel]] = ()) -> Structured:
        """``offered`` is Anthropic's business (its tools); the response format here is ``schema`` alone."""
        import openai

        s = self.settings
        extra = {k: v for k, v in (("temperature", s.temperature), ("seed", s.seed)) if v is not None}
        raw = _call("openai", self.client.chat.completions.with_raw_response.parse, model=self.model,
                    messages=messages, response_format=schema, max_completion_tokens=s.max_tokens, **extra)
        try:
            body = raw.http_response.json()
        except ValueError:
            body = None
        usage = usage_of("openai", body)
        content = _first_content(body)
        try:
            completion = raw.parse()
        except (pydantic.ValidationError, ValueError) as exc:
            messages.append({"role": "assistant", "content": content})
            return Structured(None, f"the reply did not match the schema: {schema_problem(exc)}", usage)
        except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as exc:
            messages.append({"role": "assistant", "content": content})
            return Structured(None, f"the reply was cut off ({type(exc).__name__}); answer within the token limit",
                              usage)
        msg = completion.choices[0].message if completion.choices else None
        messages.append({"role": "assistant", "content": (msg.content if msg else None) or ""})
        if msg is None or msg.refusal or msg.parsed is None:
            return Structured(None, f"no structured answer (refusal: {getattr(msg, 'refusal', None)!r})", usage)
        return Structured(msg.parsed, None, usage)

    def follow_up(self, messages: list[dict], text: str) -> None:
        messages.append({"role": "user", "content": text})


def _first_content(body) -> str:
    try:
        return body["choices"][0]["message"]["content"] or ""
    except (KeyError, IndexError, TypeError):
        return "(unreadable reply)"


class AnthropicStructured:
    """The Messages API with one tool per answer schema, the answer being the tool's input.

    Prompt caching: the user message is two text blocks, ``prefix`` with a ``cache_control`` breakpoint at its end
    and ``tail``. The cache is a prefix over tools, then system, then messages, and a change of ``tool_choice``
    drops the messages part, so the tools and the tool choice must be the same in every request that should share
    the prefix: the caller passes, as ``offered``, every schema its prompts of that prefix ask for; with more than
    one tool the choice is ``any`` and the reply must use the tool of the schema asked."""

    provider = "anthropic"

    def __init__(self, client, model: str, settings: SamplingSettings):
        self.client, self.model, self.settings = client, model, settings
        self._system = ""
        self._last_tool_use: str | None = None

    def start(self, system: str, prefix: str, tail: str = "") -> list[dict]:
        self._system = system
        if not tail:
            return [{"role": "user", "content": prefix}]
        return [{"role": "user", "content": [{"type": "text", "text": prefix, "cache_control": CACHE_CONTROL},
                                             {"type": "text", "text": tail}]}]

    def ask(self, messages: list[dict], schema: type[pydantic.BaseModel],
            offered: Sequence[type[pydantic.BaseModel]] = ()) -> Structured:
        schemas = list(dict.fromkeys([*offered, schema]))  # the order of ``offered``, ``schema`` last if not in it
        tools = [{"name": tool_name(s), "description": "Record the grade for a criterion whose answer schema is "
                  "this one.", "input_schema": inline_refs(s.model_json_schema())} for s in schemas]
        name = tool_name(schema)
        choice = ({"type": "tool", "name": name} if len(tools) == 1
                  else {"type": "any", "disable_parallel_tool_use": True})
        resp = _call("anthropic", self.client.messages.create, model=self.model, system=self._system,
                     messages=messages, max_tokens=self.settings.max_tokens, tools=tools, tool_choice=choice)
        usage = usage_of("anthropic", resp)
        content = [b.model_dump(exclude_none=True) for b in resp.content or []]
        messages.append({"role": "assistant", "content": content or [{"type": "text", "text": "(no content)"}]})
        uses = [b for b in resp.content or [] if b.type == "tool_use"]
        self._last_tool_use = uses[0].id if uses else None
        if not uses:
            return Structured(None, f"no {name} tool call in the reply (stop_reason {resp.stop_reason})", usage)
        if uses[0].name != name:
            return Structured(None, f"answered with the tool {uses[0].name}; this criterion's answer is recorded "
                                    f"with {name}", usage)
        try:
            return Structured(schema.model_validate(uses[0].input), None, usage)
        except pydantic.ValidationError as exc:
            return Structured(None, f"the {name} input did not match the schema: {schema_problem(exc)}", usage)

    def follow_up(self, messages: list[dict], text: str) -> None:
        content: list[dict] = []
        if self._last_tool_use:
            content.append({"type": "tool_result", "tool_use_id": self._last_tool_use, "is_error": True,
                            "content": "Rejected; see below."})
        content.append({"type": "text", "text": text})
        messages.append({"role": "user", "content": content})


STRUCTURED = {"openai": OpenAIStructured, "anthropic": AnthropicStructured}
