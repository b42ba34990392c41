"""The one provider-client module: everything that talks to a model API goes through here.

The built-in agent (a tool loop: ``harness.agents.chat``) and the judge (structured answers:
``harness.core.structured``) share it: SDK client
construction (key from the provider's usual environment variable, any base URL, the SDK's own
bounded retries for 429/5xx/connection errors), the two error types callers act on, and token
usage read from every reply that came back, accepted or not, so no call goes uncounted.

Errors leave as ``AuthError`` (the key was refused: stop the run) or ``ProviderError``
(anything else that survived the SDK's retries, including a reply too malformed to use; it
carries the usage of that reply when the reply had one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.core.errors import ConfigError

KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
MAX_REPLY_STRING = 256 * 1024


@dataclass
class Usage:
    """One reply's tokens. ``input_tokens`` counts every input token; the cache parts are subsets of it, priced
    at their own rates (OpenAI reports reads in ``prompt_tokens_details.cached_tokens``; Anthropic reports
    ``cache_read_input_tokens`` and ``cache_creation_input_tokens`` beside the uncached ``input_tokens``)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


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
    num = lambda k: max(0, u.get(k)) if isinstance(u.get(k), int) else 0  # noqa: E731
    if provider == "openai":
        details = u.get("prompt_tokens_details")
        cached = details.get("cached_tokens") if isinstance(details, dict) else None
        prompt = num("prompt_tokens")
        return Usage(prompt, num("completion_tokens"), min(prompt, cached) if isinstance(cached, int) and cached > 0
                     else 0)
    read, write = num("cache_read_input_tokens"), num("cache_creation_input_tokens")
    return Usage(num("input_tokens") + write + read, num("output_tokens"), read, write)


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


def _malformed(provider: str, usage: Usage, exc: Exception, response: Any) -> ProviderError:
    return ProviderError(f"malformed {provider} response ({type(exc).__name__}: {exc}): {str(response)[:300]}", usage)
