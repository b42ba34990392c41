"""The one provider-client module: everything that talks to a model API goes through here.

The built-in agent (a tool loop) and the judge (structured answers) share it: SDK client
construction (key from the provider's usual environment variable, any base URL, the SDK's own
bounded retries for 429/5xx/connection errors), the two error types callers act on, and token
usage read from every reply that came back, accepted or not, so no call goes uncounted.

Errors leave as ``AuthError`` (the key was refused: stop the run) or ``ProviderError``
(anything else that survived the SDK's retries, including a reply too malformed to use; it
carries the usage of that reply when the reply had one).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import pydantic

from harness.errors import ConfigError

KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
MAX_REPLY_STRING = 256 * 1024


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0


class AuthError(ConfigError):
    """The API refused the credentials (401/403). Every further call would fail the same way."""


class ProviderError(Exception):
    """The API call failed after the SDK's retries (rate limit, server error, connection, bad request),
    or its reply could not be used. ``usage`` is what the reply reported, when there was one.

    ``outage`` marks failures that are the provider's, not the model's (429, 5xx, connection, timeout):
    a sample ending on one is ``infra_error``, unscored and redone by ``resume``."""

    def __init__(self, message: str, usage: Usage | None = None, outage: bool = False):
        super().__init__(message)
        self.usage = usage
        self.outage = outage


def is_outage(sdk, exc: Exception) -> bool:
    """429, any 5xx, a connection error or a timeout: the service failed, whatever the model would have said."""
    if isinstance(exc, (sdk.RateLimitError, sdk.APIConnectionError)):  # APITimeoutError is a connection error
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and status >= 500


def usage_of(provider: str, body: Any) -> Usage:
    """Tokens a reply reports, from its JSON body (dict) or SDK object; zero when it reports none."""
    if body is not None and not isinstance(body, dict):
        try:
            body = body.model_dump(mode="json")
        except Exception:  # an SDK object too broken to dump reports nothing
            return Usage()
    u = (body or {}).get("usage") or {}
    if not isinstance(u, dict):
        return Usage()
    num = lambda k: u.get(k) if isinstance(u.get(k), int) else 0  # noqa: E731
    if provider == "openai":
        return Usage(num("prompt_tokens"), num("completion_tokens"))
    return Usage(num("input_tokens") + num("cache_creation_input_tokens") + num("cache_read_input_tokens"),
                 num("output_tokens"))


def make_client(provider: str, api_key: str | None = None, base_url: str | None = None, max_retries: int = 2,
                timeout: float = 600.0, environ=None, who: str | None = None):
    """The official SDK client. Without ``api_key`` the provider's environment variable is read; a
    missing key is a ConfigError naming it. Retries (429, 5xx, connection) are the SDK's, bounded."""
    import os

    if provider not in KEY_ENV:
        raise ConfigError(f"unknown provider '{provider}' (known: {', '.join(KEY_ENV)})")
    env = os.environ if environ is None else environ
    key = api_key or env.get(KEY_ENV[provider], "")
    if not key:
        raise ConfigError(f"no API key for {who or provider}: set {KEY_ENV[provider]} "
                          "(for a local server that ignores keys, any value works)")
    if provider == "openai":
        import openai
        return openai.OpenAI(api_key=key, base_url=base_url, max_retries=max_retries, timeout=timeout)
    import anthropic
    return anthropic.Anthropic(api_key=key, base_url=base_url, max_retries=max_retries, timeout=timeout)


def endpoint(client) -> str:
    """The base URL the client really calls (an explicit one, the SDK's env variable, or its default)."""
    return str(client.base_url).rstrip("/")


def _error_text(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    return f"{type(exc).__name__}" + (f" (HTTP {status})" if status else "") + f": {exc}"


def _call(provider: str, fn, **kwargs):
    """Run one SDK call, mapping its errors onto AuthError / ProviderError."""
    sdk = __import__(provider)
    base = sdk.OpenAIError if provider == "openai" else sdk.AnthropicError
    try:
        return fn(**kwargs)
    except (sdk.AuthenticationError, sdk.PermissionDeniedError) as exc:
        raise AuthError(f"the {'OpenAI-compatible' if provider == 'openai' else 'Anthropic'} API refused the key: "
                        f"{_error_text(exc)}") from exc
    except base as exc:
        raise ProviderError(_error_text(exc), outage=is_outage(sdk, exc)) from exc


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


# --- the agent's tool loop -------------------------------------------------------------------


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


@dataclass(frozen=True)
class ModelSettings:
    temperature: float | None = None
    max_tokens_per_call: int | None = None
    reasoning_effort: str | None = None


def _malformed(provider: str, usage: Usage, exc: Exception, response: Any) -> ProviderError:
    return ProviderError(f"malformed {provider} response ({type(exc).__name__}: {exc}): {str(response)[:300]}", usage)


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
                    output_tokens=usage.output_tokens, response=response, stop_reason=stop, capped=capped)

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
                    response=response, stop_reason=response.get("stop_reason"), capped=capped)

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


# --- structured answers (the judge) ------------------------------------------------------------

TOOL_NAME = "record_verdict"


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

    def start(self, system: str, user: str) -> list[dict]:
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def ask(self, messages: list[dict], schema: type[pydantic.BaseModel]) -> Structured:
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
    """The Messages API with one forced tool whose input schema is the answer model."""

    provider = "anthropic"

    def __init__(self, client, model: str, settings: SamplingSettings):
        self.client, self.model, self.settings = client, model, settings
        self._system = ""
        self._last_tool_use: str | None = None

    def start(self, system: str, user: str) -> list[dict]:
        self._system = system
        return [{"role": "user", "content": user}]

    def ask(self, messages: list[dict], schema: type[pydantic.BaseModel]) -> Structured:
        tool = {"name": TOOL_NAME, "description": "Record the grade for this criterion.",
                "input_schema": inline_refs(schema.model_json_schema())}
        resp = _call("anthropic", self.client.messages.create, model=self.model, system=self._system,
                     messages=messages, max_tokens=self.settings.max_tokens, tools=[tool],
                     tool_choice={"type": "tool", "name": TOOL_NAME})
        usage = usage_of("anthropic", resp)
        content = [b.model_dump(exclude_none=True) for b in resp.content or []]
        messages.append({"role": "assistant", "content": content or [{"type": "text", "text": "(no content)"}]})
        uses = [b for b in resp.content or [] if b.type == "tool_use" and b.name == TOOL_NAME]
        self._last_tool_use = uses[0].id if uses else None
        if not uses:
            return Structured(None, f"no {TOOL_NAME} tool call in the reply (stop_reason {resp.stop_reason})", usage)
        try:
            return Structured(schema.model_validate(uses[0].input), None, usage)
        except pydantic.ValidationError as exc:
            return Structured(None, f"the {TOOL_NAME} input did not match the schema: {schema_problem(exc)}", usage)

    def follow_up(self, messages: list[dict], text: str) -> None:
        content: list[dict] = []
        if self._last_tool_use:
            content.append({"type": "tool_result", "tool_use_id": self._last_tool_use, "is_error": True,
                            "content": "Rejected; see below."})
        content.append({"type": "text", "text": text})
        messages.append({"role": "user", "content": content})


STRUCTURED = {"openai": OpenAIStructured, "anthropic": AnthropicStructured}
