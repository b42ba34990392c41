"""Provider adapters: one conversation over OpenAI Chat Completions or Anthropic Messages.

Each adapter keeps the linear message history in its own wire format, builds the next
request, sends it through the official SDK (which retries 429/5xx/connection errors a
bounded number of times), and hands back a provider-neutral ``Turn``. Errors leave as two
types: ``AuthError`` (the key was refused: stop the run) and ``ProviderError`` (anything
else that survived the SDK's retries: this sample fails).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.errors import ConfigError


class AuthError(ConfigError):
    """The API refused the credentials (401/403). Every further sample would fail the same way."""


class ProviderError(Exception):
    """The API call failed after the SDK's retries (rate limit, server error, connection, bad request)."""


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


MAX_REPLY_STRING = 256 * 1024


def cap_strings(value: Any, cap: int = MAX_REPLY_STRING) -> tuple[Any, bool]:
    """``value`` with every string longer than ``cap`` cut to its head and tail (marked); and whether any was."""
    if isinstance(value, str):
        if len(value) <= cap:
            return value, False
        half = cap // 2
        return f"{value[:half]}\n[... {len(value) - 2 * half} characters of the reply cut by the harness ...]\n" \
               f"{value[-half:]}", True
    if isinstance(value, dict):
        items = {k: cap_strings(v, cap) for k, v in value.items()}
        return {k: v for k, (v, _) in items.items()}, any(c for _, c in items.values())
    if isinstance(value, list):
        items = [cap_strings(v, cap) for v in value]
        return [v for v, _ in items], any(c for _, c in items)
    return value, False


@dataclass(frozen=True)
class ModelSettings:
    temperature: float | None = None
    max_tokens_per_call: int | None = None
    reasoning_effort: str | None = None


def _error_text(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    return f"{type(exc).__name__}" + (f" (HTTP {status})" if status else "") + f": {exc}"


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
        import openai

        try:
            resp = self.client.chat.completions.create(**request, timeout=timeout)
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise AuthError(f"the OpenAI-compatible API refused the key: {_error_text(exc)}") from exc
        except openai.OpenAIError as exc:
            raise ProviderError(_error_text(exc)) from exc
        if not resp.choices:
            raise ProviderError(f"response has no choices: {resp.model_dump_json()[:500]}")
        usage = resp.usage
        response, capped = cap_strings(resp.model_dump(mode="json", exclude_none=True))
        msg = self.assistant_message(response)
        calls = [ToolCall(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in msg.get("tool_calls", [])]
        return Turn(text=msg["content"] or "", tool_calls=calls,
                    input_tokens=(usage.prompt_tokens or 0) if usage else 0,
                    output_tokens=(usage.completion_tokens or 0) if usage else 0,
                    response=response, stop_reason=resp.choices[0].finish_reason, capped=capped)

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


class AnthropicMessages:
    """The Messages API with client tools; thinking blocks are passed back unchanged."""

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
                               "system": self.system, "messages": self.messages, "tools": self.tools}
        if s.temperature is not None:
            req["temperature"] = s.temperature
        if s.reasoning_effort is not None:
            req["output_config"] = {"effort": s.reasoning_effort}
        return req

    def send(self, request: dict[str, Any], timeout: float | None = None) -> Turn:
        import anthropic

        # This SDK's create() has no temperature parameter; send it in the body, where the API reads it.
        kwargs = {k: v for k, v in request.items() if k not in self.BODY_ONLY}
        extra = {k: request[k] for k in self.BODY_ONLY if k in request}
        try:
            resp = self.client.messages.create(**kwargs, extra_body=extra or None, timeout=timeout)
        except (anthropic.AuthenticationError, anthropic.PermissionDeniedError) as exc:
            raise AuthError(f"the Anthropic API refused the key: {_error_text(exc)}") from exc
        except anthropic.AnthropicError as exc:
            raise ProviderError(_error_text(exc)) from exc
        u = resp.usage
        input_tokens = (u.input_tokens or 0) + (getattr(u, "cache_creation_input_tokens", None) or 0) \
            + (getattr(u, "cache_read_input_tokens", None) or 0)
        response, capped = cap_strings(resp.model_dump(mode="json", exclude_none=True))
        blocks = response.get("content") or []
        text = "\n".join(b.get("text", "") for b in blocks if b.get("type") == "text")
        calls = [ToolCall(b["id"], b["name"], b.get("input", {})) for b in blocks if b.get("type") == "tool_use"]
        return Turn(text=text, tool_calls=calls, input_tokens=input_tokens, output_tokens=u.output_tokens or 0,
                    response=response, stop_reason=resp.stop_reason, capped=capped)

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
KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


def make_client(provider: str, api_key: str, base_url: str | None, max_retries: int, timeout: float):
    """The official SDK client. Retries (429, 5xx, connection) are the SDK's, bounded by ``max_retries``."""
    if provider == "openai":
        import openai
        return openai.OpenAI(api_key=api_key, base_url=base_url, max_retries=max_retries, timeout=timeout)
    import anthropic
    return anthropic.Anthropic(api_key=api_key, base_url=base_url, max_retries=max_retries, timeout=timeout)
