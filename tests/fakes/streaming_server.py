"""A scripted loopback server that streams the way the real APIs do, to drive real agent CLIs.

Claude Code and Codex CLI only speak streaming APIs: Anthropic Messages with server-sent
events (``POST /v1/messages``) and OpenAI Responses with server-sent events
(``POST /v1/responses``). mini-swe-agent (through litellm) speaks Chat Completions, streamed or
not. This server answers all of them from one script of *turns*; each turn is a list of blocks
(``Text`` and ``ToolUse``) or a function of the request body returning that list, so a script can
look at the tools the CLI declared or at the tool results it sent back.

Only requests that declare tools consume the script: the CLIs also make side calls (titles,
quota probes, summaries) without tools, and those get ``side_text``. An exhausted script answers
a final text turn saying so, which ends the CLI's loop instead of hanging it. Every request is
recorded (``requests``) so a test can assert what the CLI sent, e.g. that a skill was loaded.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Union


@dataclass
class Text:
    text: str


@dataclass
class ToolUse:
    name: str
    input: dict[str, Any] | str  # a str is sent as-is (a freeform/custom tool's raw input)


Block = Union[Text, ToolUse]
TurnScript = Union[list[Block], Callable[[dict], list[Block]]]


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None
    scripted: bool  # whether it consumed a turn of the script


@dataclass
class _Usage:
    input_tokens: int = 120
    output_tokens: int = 30


def _sse(event: str | None, data: dict | str) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


def _tool_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


# --- Anthropic Messages, streamed --------------------------------------------------


def anthropic_stream(blocks: list[Block], model: str, usage: _Usage) -> list[bytes]:
    """The documented event sequence: message_start, per block start/delta/stop, message_delta, message_stop."""
    out = [_sse("message_start", {"type": "message_start", "message": {
        "id": _tool_id("msg"), "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": usage.input_tokens, "output_tokens": 1,
                  "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})]
    for i, block in enumerate(blocks):
        if isinstance(block, Text):
            out.append(_sse("content_block_start", {"type": "content_block_start", "index": i,
                                                    "content_block": {"type": "text", "text": ""}}))
            out.append(_sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                    "delta": {"type": "text_delta", "text": block.text}}))
        else:
            out.append(_sse("content_block_start", {"type": "content_block_start", "index": i, "content_block": {
                "type": "tool_use", "id": _tool_id("toolu"), "name": block.name, "input": {}}}))
            raw = block.input if isinstance(block.input, str) else json.dumps(block.input)
            out.append(_sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                    "delta": {"type": "input_json_delta", "partial_json": raw}}))
        out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    stop = "tool_use" if any(isinstance(b, ToolUse) for b in blocks) else "end_turn"
    out.append(_sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                      "usage": {"output_tokens": usage.output_tokens}}))
    out.append(_sse("message_stop", {"type": "message_stop"}))
    return out


# --- OpenAI Responses, streamed ----------------------------------------------------


def responses_stream(blocks: list[Block], model: str, usage: _Usage,
                     custom_tools: set[str] = frozenset()) -> list[bytes]:
    """response.created, per item output_item.added/.../output_item.done, response.completed."""
    resp_id = _tool_id("resp")
    seq = iter(range(10 ** 6))
    base = {"id": resp_id, "object": "response", "created_at": int(time.time()), "model": model,
            "status": "in_progress", "output": [], "usage": None}
    out = [_sse("response.created", {"type": "response.created", "sequence_number": next(seq), "response": base})]
    items = []
    for i, block in enumerate(blocks):
        if isinstance(block, Text):
            item_id = _tool_id("msg")
            item = {"type": "message", "id": item_id, "status": "completed", "role": "assistant",
                    "content": [{"type": "output_text", "text": block.text, "annotations": []}]}
            out.append(_sse("response.output_item.added", {
                "type": "response.output_item.added", "sequence_number": next(seq), "output_index": i,
                "item": {**item, "status": "in_progress", "content": []}}))
            out.append(_sse("response.content_part.added", {
                "type": "response.content_part.added", "sequence_number": next(seq), "item_id": item_id,
                "output_index": i, "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}))
            out.append(_sse("response.output_text.delta", {
                "type": "response.output_text.delta", "sequence_number": next(seq), "item_id": item_id,
                "output_index": i, "content_index": 0, "delta": block.text}))
            out.append(_sse("response.output_text.done", {
                "type": "response.output_text.done", "sequence_number": next(seq), "item_id": item_id,
                "output_index": i, "content_index": 0, "text": block.text}))
            out.append(_sse("response.content_part.done", {
                "type": "response.content_part.done", "sequence_number": next(seq), "item_id": item_id,
                "output_index": i, "content_index": 0, "part": item["content"][0]}))
        elif block.name in custom_tools:
            item = {"type": "custom_tool_call", "id": _tool_id("ctc"), "status": "completed",
                    "call_id": _tool_id("call"), "name": block.name,
                    "input": block.input if isinstance(block.input, str) else json.dumps(block.input)}
            out.append(_sse("response.output_item.added", {
                "type": "response.output_item.added", "sequence_number": next(seq), "output_index": i, "item": item}))
        else:
            args = block.input if isinstance(block.input, str) else json.dumps(block.input)
            item = {"type": "function_call", "id": _tool_id("fc"), "status": "completed", "call_id": _tool_id("call"),
                    "name": block.name, "arguments": args}
            out.append(_sse("response.output_item.added", {
                "type": "response.output_item.added", "sequence_number": next(seq), "output_index": i,
                "item": {**item, "arguments": "", "status": "in_progress"}}))
            out.append(_sse("response.function_call_arguments.delta", {
                "type": "response.function_call_arguments.delta", "sequence_number": next(seq),
                "item_id": item["id"], "output_index": i, "delta": args}))
            out.append(_sse("response.function_call_arguments.done", {
                "type": "response.function_call_arguments.done", "sequence_number": next(seq),
                "item_id": item["id"], "output_index": i, "arguments": args}))
        out.append(_sse("response.output_item.done", {
            "type": "response.output_item.done", "sequence_number": next(seq), "output_index": i, "item": item}))
        items.append(item)
    done = {**base, "status": "completed", "output": items, "usage": {
        "input_tokens": usage.input_tokens, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": usage.output_tokens, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage.input_tokens + usage.output_tokens}}
    out.append(_sse("response.completed",
                    {"type": "response.completed", "sequence_number": next(seq), "response": done}))
    return out


# --- OpenAI Chat Completions (litellm / mini-swe-agent) ------------------------------


def chat_completion(blocks: list[Block], model: str, usage: _Usage) -> dict:
    text = "".join(b.text for b in blocks if isinstance(b, Text)) or None
    calls = [{"id": _tool_id("call"), "type": "function", "function": {
        "name": b.name, "arguments": b.input if isinstance(b.input, str) else json.dumps(b.input)}}
        for b in blocks if isinstance(b, ToolUse)]
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = calls
    return {"id": _tool_id("chatcmpl"), "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens,
                      "total_tokens": usage.input_tokens + usage.output_tokens}}


def chat_stream(blocks: list[Block], model: str, usage: _Usage) -> list[bytes]:
    full = chat_completion(blocks, model, usage)
    msg = full["choices"][0]["message"]
    delta: dict[str, Any] = {"role": "assistant", "content": msg["content"]}
    if msg.get("tool_calls"):
        delta["tool_calls"] = [{**c, "index": i} for i, c in enumerate(msg["tool_calls"])]
    chunk = {"id": full["id"], "object": "chat.completion.chunk", "created": full["created"], "model": model}
    return [_sse(None, {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
            _sse(None, {**chunk,
                        "choices": [{"index": 0, "delta": {}, "finish_reason": full["choices"][0]["finish_reason"]}],
                        "usage": full["usage"]}),
            b"data: [DONE]\n\n"]


class StreamingLLMServer:
    """``with StreamingLLMServer([turn, ...]) as srv: srv.base_url`` (``srv.openai_base_url`` ends in /v1)."""

    def __init__(self, turns: list[TurnScript] | None = None, side_text: str = "OK", model: str = "fake-model",
                 custom_tools: set[str] = frozenset(), delay_s: float = 0.0):
        self.turns = list(turns or [])
        # a pause before each scripted reply, as a real model takes: a CLI's log is followed by polling,
        # and a model answering in microseconds would let one tool's edit be seen after the next call began
        self.delay_s = delay_s
        self.side_text = side_text
        self.model = model
        self.custom_tools = set(custom_tools)
        self.requests: list[Received] = []
        self.errors: list[str] = []  # exceptions raised by callable turns (a test bug, surfaced)
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self):
                super().setup()
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, *args):
                pass

            def do_HEAD(self):
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def do_GET(self):  # model lists and health probes some CLIs make
                data = json.dumps({"object": "list", "data": [{"id": server.model, "object": "model"}]}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                raw = self.rfile.read(length) if length else b""
                if self.headers.get("content-encoding") == "zstd":  # pragma: no cover - not seen with the pinned CLIs
                    raw = b""
                try:
                    body = json.loads(raw) if raw else None
                except (json.JSONDecodeError, UnicodeDecodeError):
                    body = None
                blocks, scripted = server._next(self.path, body)
                if scripted and server.delay_s:
                    time.sleep(server.delay_s)
                server.requests.append(Received(self.path, dict(self.headers), body, scripted))
                stream = bool(body and body.get("stream"))
                path = self.path.split("?")[0]
                if path.endswith("/count_tokens"):
                    return self._json({"input_tokens": 100})
                if path.endswith("/messages"):
                    return self._sse(anthropic_stream(blocks, server.model, _Usage()))
                if path.endswith("/responses"):
                    return self._sse(responses_stream(blocks, server.model, _Usage(), server.custom_tools))
                if path.endswith("/chat/completions"):
                    if stream:
                        return self._sse(chat_stream(blocks, server.model, _Usage()))
                    return self._json(chat_completion(blocks, server.model, _Usage()))
                self._json({"error": {"message": f"unknown path {self.path}"}}, status=404)

            def _json(self, obj, status=200):
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _sse(self, chunks: list[bytes]):
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                for chunk in chunks:
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def _next(self, path: str, body: dict | None) -> tuple[list[Block], bool]:
        declares_tools = bool(body and (body.get("tools") or any(
            isinstance(i, dict) and i.get("type") == "additional_tools" for i in body.get("input") or [])))
        if not declares_tools or path.split("?")[0].endswith("/count_tokens"):
            return [Text(self.side_text)], False
        with self._lock:
            turn = self.turns.pop(0) if self.turns else None
        if turn is None:
            return [Text("The script is exhausted; stopping.")], True
        if callable(turn):
            try:
                return turn(body), True
            except Exception as exc:  # a broken test script: say so in the reply and keep the error
                self.errors.append(f"{type(exc).__name__}: {exc}")
                return [Text(f"script error: {exc}")], True
        return list(turn), True

    @property
    def scripted_requests(self) -> list[Received]:
        return [r for r in self.requests if r.scripted]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.base_url}/v1"

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._httpd.shutdown()
        self._httpd.server_close()
