"""Judge backends over the official SDKs: OpenAI structured outputs, Anthropic forced tool use.

Neither SDK re-asks when a reply violates the schema, so a backend only reports what it
got (a parsed answer, or the problem with it) and the caller owns the bounded re-ask.
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass
from typing import Any

import pydantic

from harness.errors import BenchError, ConfigError

TOOL_NAME = "record_verdict"


class JudgeAPIError(BenchError):
    """The judge's API failed after the SDK's own retries (network, 5xx, auth)."""


@dataclass(frozen=True)
class JudgeSettings:
    temperature: float | None = 0.0
    seed: int | None = 0  # OpenAI only: this Messages API takes neither seed nor temperature
    max_tokens: int = 4096
    base_url: str | None = None
    max_retries: int = 2
    timeout_s: float = 300.0

    def recorded(self, provider: str) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if k in ("temperature", "seed", "max_tokens")}
        if provider == "anthropic":  # not accepted by the installed SDK's messages.create
            out.update(temperature="unsupported", seed="unsupported")
        return out


@dataclass
class Reply:
    parsed: pydantic.BaseModel | None
    problem: str | None
    input_tokens: int = 0
    output_tokens: int = 0


def parse_spec(spec: str) -> tuple[str, str]:
    provider, _, model = spec.partition(":")
    if provider not in ("openai", "anthropic") or not model:
        raise ConfigError(f"--judge must be openai:MODEL or anthropic:MODEL, got '{spec}'")
    return provider, model


def _first_error(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def schema_problem(exc: Exception) -> str:
    """A short, model-readable account of a schema violation."""
    if isinstance(exc, pydantic.ValidationError):
        return "; ".join(f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in exc.errors()[:5])
    return _first_error(exc)


def _raw_content(raw) -> str:
    try:
        return raw.http_response.json()["choices"][0]["message"]["content"] or ""
    except (ValueError, KeyError, IndexError, TypeError):
        return "(unreadable reply)"


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


class OpenAIJudge:
    """Chat Completions with ``parse`` and a pydantic response_format (any base_url)."""

    provider = "openai"

    def __init__(self, model: str, settings: JudgeSettings):
        import openai

        self.model, self.settings = model, settings
        try:
            self.client = openai.OpenAI(base_url=settings.base_url, max_retries=settings.max_retries,
                                        timeout=settings.timeout_s)
        except openai.OpenAIError as exc:
            raise ConfigError(f"judge openai:{model}: {exc}") from exc
        self._openai = openai

    def start(self, system: str, user: str) -> list[dict]:
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def ask(self, messages: list[dict], schema: type[pydantic.BaseModel]) -> Reply:
        openai, s = self._openai, self.settings
        extra = {k: v for k, v in (("temperature", s.temperature), ("seed", s.seed)) if v is not None}
        try:
            raw = self.client.chat.completions.with_raw_response.parse(
                model=self.model, messages=messages, response_format=schema,
                max_completion_tokens=s.max_tokens, **extra)
        except openai.APIError as exc:
            raise JudgeAPIError(f"openai:{self.model}: {_first_error(exc)}") from exc
        try:
            completion = raw.parse()
        except (pydantic.ValidationError, ValueError) as exc:
            messages.append({"role": "assistant", "content": _raw_content(raw)})
            return Reply(None, f"the reply did not match the schema: {schema_problem(exc)}")
        except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as exc:
            messages.append({"role": "assistant", "content": _raw_content(raw)})
            return Reply(None, f"the reply was cut off ({type(exc).__name__}); answer within the token limit")
        msg = completion.choices[0].message
        usage = completion.usage
        tokens = (usage.prompt_tokens, usage.completion_tokens) if usage else (0, 0)
        messages.append({"role": "assistant", "content": msg.content or ""})
        if msg.refusal or msg.parsed is None:
            return Reply(None, f"no structured answer (refusal: {msg.refusal!r})", *tokens)
        return Reply(msg.parsed, None, *tokens)

    def follow_up(self, messages: list[dict], text: str) -> None:
        messages.append({"role": "user", "content": text})


class AnthropicJudge:
    """Messages API with one forced tool whose input schema is the answer model."""

    provider = "anthropic"

    def __init__(self, model: str, settings: JudgeSettings):
        import anthropic

        self.model, self.settings = model, settings
        try:
            self.client = anthropic.Anthropic(base_url=settings.base_url, max_retries=settings.max_retries,
                                              timeout=settings.timeout_s)
        except anthropic.AnthropicError as exc:
            raise ConfigError(f"judge anthropic:{model}: {exc}") from exc
        self._anthropic = anthropic
        self._system = ""
        self._last_tool_use: str | None = None

    def start(self, system: str, user: str) -> list[dict]:
        self._system = system
        return [{"role": "user", "content": user}]

    def ask(self, messages: list[dict], schema: type[pydantic.BaseModel]) -> Reply:
        s = self.settings
        tool = {"name": TOOL_NAME, "description": "Record the grade for this criterion.",
                "input_schema": inline_refs(schema.model_json_schema())}
        try:
            resp = self.client.messages.create(
                model=self.model, system=self._system, messages=messages, max_tokens=s.max_tokens,
                tools=[tool], tool_choice={"type": "tool", "name": TOOL_NAME})
        except self._anthropic.APIError as exc:
            raise JudgeAPIError(f"anthropic:{self.model}: {_first_error(exc)}") from exc
        tokens = (resp.usage.input_tokens, resp.usage.output_tokens)
        messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in resp.content]})
        uses = [b for b in resp.content if b.type == "tool_use" and b.name == TOOL_NAME]
        self._last_tool_use = uses[0].id if uses else None
        if not uses:
            return Reply(None, f"no {TOOL_NAME} tool call in the reply (stop_reason {resp.stop_reason})", *tokens)
        try:
            return Reply(schema.model_validate(uses[0].input), None, *tokens)
        except pydantic.ValidationError as exc:
            return Reply(None, f"the {TOOL_NAME} input did not match the schema: {schema_problem(exc)}", *tokens)

    def follow_up(self, messages: list[dict], text: str) -> None:
        content: list[dict] = []
        if self._last_tool_use:
            content.append({"type": "tool_result", "tool_use_id": self._last_tool_use, "is_error": True,
                            "content": "Rejected; see below."})
        content.append({"type": "text", "text": text})
        messages.append({"role": "user", "content": content})


def make_backend(spec: str, settings: JudgeSettings):
    provider, model = parse_spec(spec)
    return (OpenAIJudge if provider == "openai" else AnthropicJudge)(model, settings)
