"""The built-in LLM agent: one plain tool loop (in the spirit of mini-swe-agent) over either API.

Linear history, one model call per step, every event appended to the transcript as it
happens. A step is: check the budgets, call the model (recorded as a ``model_call`` and a
``usage`` event), run each tool call it asked for through the recorded, sandboxed toolbox,
and feed the results back. The sample ends when the model submits a report (``completed``),
a budget runs out (``limit_reached``), or the API fails past the SDK's retries
(``agent_error``). A refused key raises ``AuthError`` so the runner stops the whole run.

Requests are recorded without repeating the history (it would grow the transcript
quadratically): ``messages`` holds only the messages added since the previous request,
starting at index ``messages_from``, and an assistant turn in it is a reference
``{"$assistant_turn_of": E}`` to the ``model_call`` event whose response it came from;
``full_requests`` rebuilds the exact bodies sent. Anthropic's prompt-cache breakpoints on messages are
recorded as the history indexes that carried one (``cache_breakpoints``), not in the messages, so a
recorded message is the same in every later request. A reply is capped (every string at
``MAX_REPLY_STRING``): a cut reply's tool calls are refused, not run on truncated arguments.
"""

from __future__ import annotations

import copy
import time
from typing import Any

from harness.agents.base import AgentOutcome, AgentTask, Limits
from harness.agents.chat import PROVIDERS, ModelSettings, ToolCall, ToolOutput, with_cache_breakpoints
from harness.agents.llm_tools import (
    BASH,
    SUBMIT,
    TOOLS,
    ToolArgumentError,
    parse_arguments,
    recorded_arguments,
    result_text,
)
from harness.core.errors import ConfigError, InfraError
from harness.core.pricing import PriceTable
from harness.core.providers import KEY_ENV, MAX_REPLY_STRING, AuthError, ProviderError, Usage, make_client
from harness.models import Report, TokenUsage

NUDGE = ("Your last reply called no tool. Continue with the bash or edit_file tool, "
         "or call submit_report when you are done.")


class LLMAgent:
    """``openai:MODEL`` or ``anthropic:MODEL``. One SDK client per agent; a fresh history per sample."""

    def __init__(self, provider: str, model: str, api_key: str | None, base_url: str | None = None,
                 settings: ModelSettings = ModelSettings(), prices: PriceTable | None = None,
                 max_retries: int = 4, timeout: float = 600.0):
        if provider not in PROVIDERS:
            raise ConfigError(f"unknown provider '{provider}' (known: {', '.join(PROVIDERS)})")
        if not model:
            raise ConfigError(f"agent '{provider}:' needs a model name, e.g. {provider}:MODEL")
        if not api_key:
            raise ConfigError(f"no API key for {provider}: set {KEY_ENV[provider]} "
                              "(for a local server that ignores keys, any value works)")
        self.provider, self.model = provider, model
        self.name = f"{provider}:{model}"
        self.price = (prices or PriceTable()).lookup(model)
        self.model_settings = settings
        self.client = make_client(provider, api_key, base_url, max_retries, timeout)
        self.settings: dict[str, Any] = {
            "provider": provider, "model": model, "base_url": base_url,
            "temperature": settings.temperature, "max_tokens_per_call": settings.max_tokens_per_call,
            "reasoning_effort": settings.reasoning_effort, "max_retries": max_retries, "timeout_s": timeout,
            "price_per_mtok": self.price.model_dump(exclude_none=True) if self.price else None,
            "tools": [t["name"] for t in TOOLS],
        }

    def check_limits(self, limits: Limits) -> None:
        """A cost budget needs a price: fail before any sample rather than run unbudgeted."""
        if limits.max_cost_usd is not None and self.price is None:
            raise ConfigError(f"--max-cost is set but there is no price for model '{self.model}'; "
                              "add it to a price file and pass --prices")

    def run(self, task: AgentTask) -> AgentOutcome:
        self.check_limits(task.limits)
        from harness.core.skill import skill_references  # the skill arm: its references/ readable in the workspace
        with skill_references(task) as task:
            return _Episode(self, task).run()


class _Episode:
    """One sample's loop state: the conversation, the budgets spent so far, the tool error count."""

    def __init__(self, agent: LLMAgent, task: AgentTask):
        self.agent, self.task, self.limits = agent, task, task.limits
        self.conv = PROVIDERS[agent.provider](agent.client, agent.model, agent.model_settings, TOOLS,
                                              task.system_prompt, task.prompt)
        self.start = time.monotonic()
        self.steps = self.tool_errors = self.input_tokens = self.output_tokens = 0
        self.cache_read_tokens = self.cache_write_tokens = 0
        self.cost: float | None = 0.0 if agent.price else None
        self.recorded = 0  # messages already written to the transcript in earlier requests
        self.turn_events: dict[int, int] = {}  # history index of an assistant turn -> its model_call event id
        self.last_call_event = -1

    # --- budgets ---------------------------------------------------------------

    def remaining_wall(self) -> float:
        return self.limits.max_wall_seconds - self.task.clock.elapsed()

    def limit_hit(self) -> str | None:
        lim = self.limits
        if lim.max_steps is not None and self.steps >= lim.max_steps:
            return f"max_steps ({lim.max_steps}) reached"
        if self.remaining_wall() <= 0:
            return f"max_wall_seconds ({lim.max_wall_seconds:g}) reached"
        if lim.max_tokens is not None and self.input_tokens + self.output_tokens >= lim.max_tokens:
            return f"max_tokens ({lim.max_tokens}) reached: {self.input_tokens + self.output_tokens} used"
        if lim.max_cost_usd is not None and self.cost is None:  # a call could not be priced: stop, do not guess
            return f"max_cost_usd ({lim.max_cost_usd:g}) set but a call could not be priced (cache tokens without a " \
                   f"cache rate in the price table)"
        if lim.max_cost_usd is not None and self.cost is not None and self.cost >= lim.max_cost_usd:
            return f"max_cost_usd ({lim.max_cost_usd:g}) reached: ${self.cost:.4f} spent"
        return self.task.tools.disk_problem

    def outcome(self, status: str, report: Report | None = None, error: str | None = None) -> AgentOutcome:
        cost = round(self.cost, 6) if self.cost is not None else None
        return AgentOutcome(status=status, report=report, error=error, tool_errors=self.tool_errors,
                            usage=TokenUsage(input_tokens=self.input_tokens, output_tokens=self.output_tokens,
                                             cache_read_tokens=self.cache_read_tokens,
                                             cache_write_tokens=self.cache_write_tokens, cost_usd=cost))

    # --- the loop ----------------------------------------------------------------

    def run(self) -> AgentOutcome:
        tr = self.task.transcript
        while True:
            reason = self.limit_hit()
            if reason:
                tr.append("error", error_type="limit_reached", message=reason)
                return self.outcome("limit_reached", error=reason)
            turn = self.call_model()
            if isinstance(turn, AgentOutcome):
                return turn
            if turn.text:
                tr.append("message", role="assistant", content=turn.text)
            self.conv.add_assistant(turn)
            self.turn_events[len(self.conv.messages) - 1] = self.last_call_event
            if not turn.tool_calls:
                tr.append("message", role="user", content=NUDGE)
                self.conv.add_user(NUDGE)
                continue
            outputs = []
            for call in turn.tool_calls:
                result = self.refuse_capped(call) if turn.capped else self.run_tool(call)
                if isinstance(result, Report):
                    return self.outcome("completed", report=result)
                outputs.append(result)
            self.conv.add_tool_results(outputs)

    def call_model(self):
        """One recorded request/response pair; returns the Turn, or the outcome when the API failed."""
        tr = self.task.transcript
        request = self.conv.request()
        history = self.conv.messages  # without the cache breakpoints, which are recorded as indexes
        recorded = {k: v for k, v in request.items() if k != "messages"}
        recorded["messages_from"] = self.recorded
        recorded["messages"] = [{"$assistant_turn_of": self.turn_events[i]} if i in self.turn_events
                                else copy.deepcopy(m) for i, m in enumerate(history) if i >= self.recorded]
        if hasattr(self.conv, "cache_points"):
            recorded["cache_breakpoints"] = self.conv.cache_points()
        self.recorded = len(history)
        t0 = time.monotonic()
        try:
            turn = self.conv.send(request, timeout=max(1.0, self.remaining_wall()))
        except (AuthError, ProviderError) as exc:
            tr.append("model_call", provider=self.agent.provider, request=recorded, error=str(exc),
                      latency_s=round(time.monotonic() - t0, 4))
            if isinstance(exc, AuthError):
                raise
            if exc.outage:  # the provider failed, not the model: unscored, and redone by resume
                if exc.usage is not None:
                    self.account(exc.usage)
                raise InfraError(f"model call failed after retries (provider outage): {exc}")
            if exc.usage is not None:  # the reply came back but could not be used: its tokens were spent
                self.account(exc.usage)
            return self.outcome("agent_error", error=f"model call failed after retries: {exc}")
        self.steps += 1
        event = tr.append("model_call", provider=self.agent.provider, request=recorded, response=turn.response,
                          latency_s=round(time.monotonic() - t0, 4))
        self.last_call_event = event.id
        self.account(turn.usage)
        return turn

    def account(self, usage: Usage) -> None:
        """Count one call's tokens (and cost, when priced: cache reads and writes at their own rates) and record
        them as a ``usage`` event. A call that cannot be priced makes the sample's cost unknown, not lower."""
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.cache_read_tokens += usage.cache_read_tokens
        self.cache_write_tokens += usage.cache_write_tokens
        price = self.agent.price
        call_cost = price.cost(usage.input_tokens, usage.output_tokens, usage.cache_read_tokens,
                               usage.cache_write_tokens) if price else None
        if call_cost is None:
            self.cost = None
        elif self.cost is not None:
            self.cost += call_cost
        self.task.transcript.append("usage", model=self.agent.model, input_tokens=usage.input_tokens,
                                    output_tokens=usage.output_tokens, cache_read_tokens=usage.cache_read_tokens,
                                    cache_write_tokens=usage.cache_write_tokens,
                                    cost_usd=round(call_cost, 8) if call_cost is not None else None)

    def refuse_capped(self, call: ToolCall) -> ToolOutput:
        """A tool call from a reply that had to be cut: recorded, shown to the model as an error, not run."""
        self.tool_errors += 1
        tr = self.task.transcript
        tr.append("tool_call", call_id=call.id, name=call.name, arguments=recorded_arguments(call.arguments))
        event = tr.append("tool_result", call_id=call.id,
                          error=f"your reply was longer than the harness accepts (any single string over "
                                f"{MAX_REPLY_STRING} characters), so this call was not run; send smaller pieces")
        return ToolOutput(call.id, result_text(event), is_error=True)

    def run_tool(self, call: ToolCall) -> ToolOutput | Report:
        tools, tr = self.task.tools, self.task.transcript
        try:
            args = parse_arguments(call.name, call.arguments)
        except ToolArgumentError as exc:
            self.tool_errors += 1
            tr.append("tool_call", call_id=call.id, name=call.name, arguments=recorded_arguments(call.arguments))
            event = tr.append("tool_result", call_id=call.id, error=str(exc))
            return ToolOutput(call.id, result_text(event), is_error=True)
        if call.name == SUBMIT:
            tr.append("tool_call", call_id=call.id, name=call.name, arguments=args.model_dump())
            tr.append("report", report=args)
            return args
        if call.name == BASH:
            event = tools.bash(args.command, call_id=call.id, timeout=max(1.0, self.remaining_wall()))
        else:
            event = tools.edit_file(args.path, args.old_text, args.new_text, call_id=call.id)
        if event.error:
            self.tool_errors += 1
        return ToolOutput(call.id, result_text(event, call.name), is_error=bool(event.error))


def full_requests(events) -> list[dict[str, Any]]:
    """Rebuild each request body exactly as sent, from the transcript's ``model_call`` events."""
    out, history = [], []
    calls = {e.id: e for e in events if e.kind == "model_call"}
    for e in events:
        if e.kind == "model_call":
            req = dict(e.request)
            added = [PROVIDERS[calls[m["$assistant_turn_of"]].provider].assistant_message(
                calls[m["$assistant_turn_of"]].response) if "$assistant_turn_of" in m else m
                for m in req.pop("messages")]
            history = history[:req.pop("messages_from")] + added
            points = req.pop("cache_breakpoints", None)
            out.append({**req, "messages": with_cache_breakpoints(history, points) if points else history})
    return out


def make_llm_agent(spec: str, *, base_url: str | None = None, temperature: float | None = None,
                   max_tokens_per_call: int | None = None, reasoning_effort: str | None = None,
                   prices: PriceTable | None = None, max_retries: int = 4, timeout: float = 600.0,
                   api_key: str | None = None, environ: dict[str, str] | None = None) -> LLMAgent:
    """Build from ``provider:MODEL``; the key comes from the provider's usual environment variable."""
    import os

    provider, _, model = spec.partition(":")
    env = os.environ if environ is None else environ
    key = api_key or env.get(KEY_ENV.get(provider, ""), "")
    return LLMAgent(provider, model, key, base_url=base_url, prices=prices, max_retries=max_retries,
                    timeout=timeout, settings=ModelSettings(temperature, max_tokens_per_call, reasoning_effort))


def usage_from_events(events) -> TokenUsage:
    """The tokens (and cost) a transcript's ``usage`` events add up to: what a sample spent even when
    its agent crashed before it could report its own total."""
    usage = [e for e in events if e.kind == "usage"]
    costs = [e.cost_usd for e in usage]
    cost = round(sum(costs), 6) if costs and all(c is not None for c in costs) else None
    return TokenUsage(input_tokens=sum(e.input_tokens for e in usage),
                      output_tokens=sum(e.output_tokens for e in usage),
                      cache_read_tokens=sum(e.cache_read_tokens for e in usage),
                      cache_write_tokens=sum(e.cache_write_tokens for e in usage), cost_usd=cost)


def create(spec: str, root, **options) -> LLMAgent:
    return make_llm_agent(spec, **options)
