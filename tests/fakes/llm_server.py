"""A scripted loopback HTTP server that speaks the OpenAI and Anthropic wire formats.

Tests drive it through the real ``openai`` and ``anthropic`` SDKs (never mocked): give it a
list of scripted replies, point the SDK's ``base_url`` at it, and read back the requests it
received. Replies are served in order, whatever the path; an exhausted script answers 500
so a test that under-scripts fails loudly instead of hanging.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    body: dict[str, Any] | str
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None


MAX_CACHE_BREAKPOINTS = 4  # the Messages API refuses a request with more cache_control blocks than this


def cache_breakpoints(value: Any) -> int:
    """How many ``cache_control`` markers a request body holds (system, tools and messages alike)."""
    if isinstance(value, dict):
        return ("cache_control" in value) + sum(cache_breakpoints(v) for v in value.values())
    if isinstance(value, list):
        return sum(cache_breakpoints(v) for v in value)
    return 0


def breakpoint_refusal(path: str, body: Any) -> Reply | None:
    """The real API's 400 for a Messages request with more than 4 cache breakpoints."""
    n = cache_breakpoints(body) if path.rstrip("/").endswith("/messages") else 0
    if n <= MAX_CACHE_BREAKPOINTS:
        return None
    return Reply({"type": "error", "error": {"type": "invalid_request_error", "message":
                  f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found {n}."}},
                 status=400)


class PromptCache:
    """The Messages API's prompt cache, modelled closely enough to check where breakpoints go.

    A request is cached as one sequence: the tools, the system blocks, the tool choice (a change of it drops the
    messages part), then every message block. A ``cache_control`` marker ends a cacheable prefix; a prefix
    shorter than ``min_tokens`` is not cached (the API's minimum is 1,024 tokens for most models). A request reads
    the longest of its marked prefixes seen before and writes the rest up to its last marker. Tokens are
    estimated at four characters each."""

    def __init__(self, min_tokens: int = 1024):
        self.min_tokens = min_tokens
        self.seen: set[str] = set()

    @staticmethod
    def segments(body: dict) -> list[tuple[str, bool]]:
        """(the segment's canonical text, whether a breakpoint ends it), in cache order."""
        def seg(role: str, block) -> tuple[str, bool]:
            marked = isinstance(block, dict) and "cache_control" in block
            plain = {k: v for k, v in block.items() if k != "cache_control"} if isinstance(block, dict) else block
            return role + json.dumps(plain, sort_keys=True), marked

        system = body.get("system") or []
        out = [seg("tool", t) for t in body.get("tools") or []]
        out += [seg("system", b) for b in ([{"type": "text", "text": system}] if isinstance(system, str) else system)]
        out.append(seg("tool_choice", body.get("tool_choice")))
        for m in body.get("messages") or []:
            content = m.get("content")
            out += [seg(m.get("role", ""), b) for b in ([{"type": "text", "text": content}]
                                                        if isinstance(content, str) else content or [])]
        return out

    def usage(self, body: dict) -> tuple[int, int, int]:
        """(uncached input, cache read, cache write) tokens of one request, and the cache updated."""
        segs = self.segments(body)
        ends = [i + 1 for i, (_, marked) in enumerate(segs) if marked]
        prefixes = ["".join(text for text, _ in segs[:n]) for n in ends]
        total = sum(len(text) for text, _ in segs) // 4
        cacheable = [p for p in prefixes if len(p) // 4 >= self.min_tokens]
        read = max((len(p) // 4 for p in cacheable if p in self.seen), default=0)
        write = max((len(p) // 4 for p in cacheable), default=0) - read
        self.seen.update(cacheable)
        return total - read - write, read, write


class ScriptedLLMServer:
    """``with ScriptedLLMServer([Reply(...), ...]) as srv: srv.openai_base_url / srv.anthropic_base_url``.

    Like the real Messages API, a request with more than 4 ``cache_control`` breakpoints gets a 400 (and does
    not use up a scripted reply). With ``prompt_cache`` (a ``PromptCache``), the usage of every Messages reply is
    replaced by what that cache reads and writes for the request (the scripted output tokens are kept)."""

    def __init__(self, replies: list[Reply] | None = None, prompt_cache: PromptCache | None = None):
        self.replies = list(replies or [])
        self.requests: list[Received] = []
        self.prompt_cache = prompt_cache
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # TCP_NODELAY: http.server writes headers and body separately, and with Nagle's algorithm
            # each reply then stalls ~40 ms on loopback, which benchmarks would count as harness time.
            disable_nagle_algorithm = True

            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except json.JSONDecodeError:
                    body = None
                with server._lock:
                    server.requests.append(Received("POST", self.path, dict(self.headers), body))
                    refusal = breakpoint_refusal(self.path, body)
                    if refusal is not None:
                        reply = refusal
                    elif server.replies:
                        reply = server.replies.pop(0)
                    else:
                        reply = Reply({"error": {"message": "script exhausted", "type": "server_error"}}, status=500)
                    if server.prompt_cache and refusal is None and self.path.rstrip("/").endswith("/messages") \
                            and isinstance(reply.body, dict) and "usage" in reply.body:
                        uncached, read, write = server.prompt_cache.usage(body or {})
                        usage = {**reply.body["usage"], "input_tokens": uncached, "cache_read_input_tokens": read,
                                 "cache_creation_input_tokens": write}
                        reply = Reply({**reply.body, "usage": usage}, reply.status, reply.headers, reply.delay_s)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                data = (reply.body if isinstance(reply.body, str) else json.dumps(reply.body)).encode()
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def openai_base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def add(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._httpd.shutdown()
        self._httpd.server_close()


# --- reply builders: minimal but complete bodies of each API -------------------------


def openai_chat(content: str | None = None, tool_calls: list[tuple[str, dict | str]] | None = None,
                model: str = "fake-model", prompt_tokens: int = 100, completion_tokens: int = 20,
                cached_tokens: int = 0) -> dict:
    """A Chat Completions response; ``tool_calls`` is [(name, arguments dict or raw JSON string)];
    ``cached_tokens`` of the ``prompt_tokens`` were read from the prompt cache."""
    calls = [{"id": f"call_{uuid.uuid4().hex[:10]}", "type": "function",
              "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
             for name, args in (tool_calls or [])]
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = calls
    return {"id": f"chatcmpl-{uuid.uuid4().hex[:10]}", "object": "chat.completion", "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens,
                      **({"prompt_tokens_details": {"cached_tokens": cached_tokens}} if cached_tokens else {})}}


def anthropic_message(text: str | None = None, tool_uses: list[tuple[str, dict]] | None = None,
                      model: str = "fake-model", input_tokens: int = 100, output_tokens: int = 20,
                      cache_read: int = 0, cache_write: int = 0) -> dict:
    """A Messages API response; ``tool_uses`` is [(name, input dict)]. As the API does, ``input_tokens`` is the
    uncached input; ``cache_read`` / ``cache_write`` are reported beside it."""
    content: list[dict[str, Any]] = []
    if text:
        content.append({"type": "text", "text": text})
    for name, args in tool_uses or []:
        content.append({"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:10]}", "name": name, "input": args})
    return {"id": f"msg_{uuid.uuid4().hex[:10]}", "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": "tool_use" if tool_uses else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens,
                      **({"cache_read_input_tokens": cache_read} if cache_read else {}),
                      **({"cache_creation_input_tokens": cache_write} if cache_write else {})}}


def openai_error(status: int, message: str = "error", kind: str = "server_error",
                 retry_after_ms: float | None = None) -> Reply:
    """An error reply; ``retry_after_ms`` sets the header the SDKs honour, keeping retry tests fast."""
    return Reply({"error": {"message": message, "type": kind, "code": None}}, status=status,
                 headers=_retry_headers(retry_after_ms))


def anthropic_error(status: int, message: str = "error", kind: str = "api_error",
                    retry_after_ms: float | None = None) -> Reply:
    return Reply({"type": "error", "error": {"type": kind, "message": message}}, status=status,
                 headers=_retry_headers(retry_after_ms))


def _retry_headers(retry_after_ms: float | None) -> dict[str, str]:
    return {} if retry_after_ms is None else {"retry-after-ms": str(retry_after_ms)}


def openai_json(obj: dict, **kwargs) -> dict:
    """A Chat Completions response whose content is ``obj`` as JSON (a structured-output reply)."""
    return openai_chat(content=json.dumps(obj), **kwargs)


def anthropic_tool_use(name: str, input: dict, **kwargs) -> dict:
    """A Messages API response holding one (e.g. forced) tool_use block."""
    return anthropic_message(tool_uses=[(name, input)], **kwargs)
