"""The built-in agent's side of the model APIs: one tool-loop turn per call, over Chat Completions or Messages.

The client, errors and usage are the shared ``harness.core.providers``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.core.providers import MAX_REPLY_STRING, ProviderError, Usage, _call, _malformed, cap_strings, usage_of  # noqa: F401


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str | dict[str, Any]  # OpenAI sends a JSON string, Anthropic an object


@dataclass
class ToolOutput:
    call_id: str
    text: str
    is_error: bool = False


@dataclass
class Turn:
    text: str
    tool_calls: list[ToolCall]
    input_tokens: int
    output_tokens: int
    response: dict[str, Any]  # the reply as received, every string capped at MAX_REPLY_STRING
    stop_reason: str | None = None
    capped: bool = False  # some string of the reply was cut: its tool calls must not run
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def usage(self) -> Usage:
        return Usage(self.input_tokens, self.output_tokens, self.cache_read_tokens, self.cache_write_tokens)


@dataclass(frozen=True)
class ModelSettings:
    temperature: float | None = None
    max_tokens_per_call: int | None = None
    reasoning_effort: str | None = None


class OpenAIChat:
    """Chat Completions with function tools; works with any OpenAI-compatible ``base_url``."""

    provider = "openai"

    def __init__(self, client, model: str, settings: ModelSettings, tools: list[dict], system: str, prompt: str):
        self.client, self.model, self.settings = client, model, settings
        self.tools = [{"type": "function", "function": {"name": t["name"], "description": t["description"],
                                                          "parameters": t["parameters"]}} for t in tools]
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": system},
                                               {"role": "user", "content": prompt}]

    def request(self) -> dict[str, Any]:
        req: dict[str, Any] = {"model": self.model, "messages": self.messages, "tools": self.tools}
        s = self.settings
        if s.temperature is not None:
            req["temperature"] = s.temperature
        if s.max_tokens_per_call is not None:
            req["max_completion_tokens"] = s.max_tokens_per_call
        if s.reasoning_effort is not None:
            req["reasoning_effort"] = s.reasoning_effort
        return req

    def send(self, request: dict[str, Any], timeout: float | None = None) -> Turn:
        resp = _call("openai", self.client.chat.completions.create, **request, timeout=timeout)
        usage = usage_of("openai", resp)  # read first: a reply we cannot use still cost tokens
        try:
            response, capped = cap_strings(resp.model_dump(mode="json", exclude_none=True))
            msg = self.assistant_message(response)
            calls = [ToolCall(c["id"], c["function"]["name"], c["function"]["arguments"])
                     for c in msg.get("tool_calls", [])]
            stop = response["choices"][0].get("finish_reason")
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
            raise _malformed("openai", usage, exc, resp) from exc
        return Turn(text=msg["content"] or "", tool_calls=calls, input_tokens=usage.input_tokens,
                    output_tokens=usage.output_tokens, response=response, stop_reason=stop, capped=capped,
                    cache_read_tokens=usage.cache_read_tokens, cache_write_tokens=usage.cache_write_tokens)

    @staticmethod
    def assistant_message(response: dict[str, Any]) -> dict[str, Any]:
        """The history message for a reply; ``full_requests`` rebuilds it from the recorded response."""
        m = response["choices"][0]["message"]
        text = m.get("content") or ""
        calls = [c for c in m.get("tool_calls") or [] if c.get("function") is not None]
        msg: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            msg["tool_calls"] = [{"id": c["id"], "type": "function",
                                  "function": {"name": c["function"]["name"],
                                               "arguments": c["function"].get("arguments") or ""}} for c in calls]
        elif not text:
            msg["content"] = ""
        return msg

    def add_assistant(self, turn: Turn) -> None:
        self.messages.append(self.assistant_message(turn.response))

    def add_tool_results(self, outputs: list[ToolOutput]) -> None:
        for o in outputs:
            self.messages.append({"role": "tool", "tool_call_id": o.call_id, "content": o.text})

    def add_user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})


CACHE_CONTROL = {"type": "ephemeral"}
MAX_CACHE_BREAKPOINTS = 4  # the Messages API refuses a request with more


def with_cache_breakpoints(messages: list[dict[str, Any]], indexes: list[int]) -> list[dict[str, Any]]:
    """``messages`` with a ``cache_control`` breakpoint on the last block of each message at ``indexes``; the
    others are the same objects, and the history itself is never changed (a marker left in it would pile up)."""
    out = list(messages)
    for i in indexes:
        m = messages[i]
        content = m["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else [dict(b) for b in content]
        if not blocks:
            continue
        blocks[-1] = {**blocks[-1], "cache_control": CACHE_CONTROL}
        out[i] = {**m, "content": blocks}
    return out


class AnthropicMessages:
    """The Messages API with client tools; thinking blocks are passed back unchanged.

    Prompt caching: a ``cache_control`` breakpoint on the system prompt (which caches the tools before it too)
    and on the latest two user turns: the newest is written to the cache, the one before it is where the
    previous request's cache is read from. Three breakpoints, never more than the API's four."""

    provider = "anthropic"
    DEFAULT_MAX_TOKENS = 8192  # the API requires max_tokens on every call
    BODY_ONLY = ("temperature",)

    def __init__(self, client, model: str, settings: ModelSettings, tools: list[dict], system: str, prompt: str):
        self.client, self.model, self.settings = client, model, settings
        self.system = system
        self.tools = [{"name": t["name"], "description": t["description"], "input_schema": t["parameters"]}
                      for t in tools]
        self.messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]

    def request(self) -> dict[str, Any]:
        s = self.settings
        req: dict[str, Any] = {"model": self.model, "max_tokens": s.max_tokens_per_call or self.DEFAULT_MAX_TOKENS,
                               "system": [{"type": "text", "text": self.system, "cache_control": CACHE_CONTROL}],
                               "messages": with_cache_breakpoints(self.messages, self.cache_points()),
                               "tools": self.tools}
        if s.temperature is not None:
            req["temperature"] = s.temperature
        if s.reasoning_effort is not None:
            req["output_config"] = {"effort": s.reasoning_effort}
        return req

    def send(self, request: dict[str, Any], timeout: float | None = None) -> Turn:
        # This SDK's create() has no temperature parameter; send it in the body, where the API reads it.
        kwargs = {k: v for k, v in request.items() if k not in self.BODY_ONLY}
        extra = {k: request[k] for k in self.BODY_ONLY if k in request}
        resp = _call("anthropic", self.client.messages.create, **kwargs, extra_body=extra or None, timeout=timeout)
        usage = usage_of("anthropic", resp)
        try:
            response, capped = cap_strings(resp.model_dump(mode="json", exclude_none=True))
            blocks = response.get("content") or []
            text = "\n".join(b.get("text", "") for b in blocks if b.get("type") == "text")
            calls = [ToolCall(b["id"], b["name"], b.get("input", {})) for b in blocks if b.get("type") == "tool_use"]
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise _malformed("anthropic", usage, exc, resp) from exc
        return Turn(text=text, tool_calls=calls, input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                    response=response, stop_reason=response.get("stop_reason"), capped=capped,
                    cache_read_tokens=usage.cache_read_tokens, cache_write_tokens=usage.cache_write_tokens)

    def cache_points(self) -> list[int]:
        """The history indexes that get a breakpoint: the last two user turns (with the system one: 3 ≤ 4)."""
        users = [i for i, m in enumerate(self.messages) if m.get("role") == "user"]
        return users[-2:]

    @staticmethod
    def assistant_message(response: dict[str, Any]) -> dict[str, Any]:
        """The history message for a reply (thinking blocks passed back unchanged)."""
        content = response.get("content") or [{"type": "text", "text": "(no content)"}]
        return {"role": "assistant", "content": content}

    def add_assistant(self, turn: Turn) -> None:
        self.messages.append(self.assistant_message(turn.response))

    def add_tool_results(self, outputs: list[ToolOutput]) -> None:
        self.messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": o.call_id, "content": o.text, "is_error": o.is_error}
            for o in outputs]})

    def add_user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})


PROVIDERS = {"openai": OpenAIChat, "anthropic": AnthropicMessages}
