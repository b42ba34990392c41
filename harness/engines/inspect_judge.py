"""Our LLM judge (``judges.llm.Judge``: rubric, evidence checks, one re-ask) asking an Inspect AI model: the
task's ``grader`` role, never the model under test. The judge is synchronous and runs on a worker thread;
each ask is one ``generate`` on Inspect's event loop."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

import pydantic
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ResponseSchema,
)
from inspect_ai.util import json_schema

from harness.core.providers import Usage
from harness.core.structured import Structured, schema_problem
from judges.llm import Judge

ASK_TIMEOUT_S = 900


class InspectStructured:
    """The judge's backend interface (``harness.core.structured``) over an Inspect ``Model``."""

    provider = "inspect"

    def __init__(self, model: Model, loop: asyncio.AbstractEventLoop, max_tokens: int = 4096):
        self.model, self.loop, self.max_tokens = model, loop, max_tokens

    def start(self, system: str, prefix: str, tail: str = "") -> list:
        return [ChatMessageSystem(content=system), ChatMessageUser(content=prefix + tail)]

    def ask(self, messages: list, schema: type[pydantic.BaseModel], offered=()) -> Structured:
        config = GenerateConfig(temperature=0.0, max_tokens=self.max_tokens,
                                response_schema=ResponseSchema(name="verdict", json_schema=json_schema(schema)))
        output = asyncio.run_coroutine_threadsafe(self.model.generate(messages, config=config),
                                                  self.loop).result(ASK_TIMEOUT_S)
        u = output.usage
        usage = Usage(input_tokens=u.input_tokens if u else 0, output_tokens=u.output_tokens if u else 0)
        text = output.completion.strip()
        messages.append(ChatMessageAssistant(content=text or "(no content)"))
        if text.startswith("```"):
            text = text.strip("`").removeprefix("json").strip()
        try:
            return Structured(schema.model_validate(json.loads(text)), None, usage)
        except (json.JSONDecodeError, pydantic.ValidationError) as exc:
            return Structured(None, f"the reply did not match the schema: {schema_problem(exc)}", usage)

    def follow_up(self, messages: list, text: str) -> None:
        messages.append(ChatMessageUser(content=text))


@dataclass
class InspectJudge(Judge):
    """``Judge`` with an Inspect model for its backend; verdicts say ``llm:inspect:grader/<model>``."""

    grader: Model | None = field(default=None, repr=False)
    loop: asyncio.AbstractEventLoop | None = field(default=None, repr=False)

    def __post_init__(self):
        self.provider, self.model, self.base_url = "inspect", str(self.grader), None
        self.backend = InspectStructured(self.grader, self.loop, self.settings.max_tokens)
