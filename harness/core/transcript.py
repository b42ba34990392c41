"""Append-only JSONL transcripts: every event is written and flushed as it happens."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from harness.core.errors import InputError
from harness.models import Event

_EVENT = TypeAdapter(Event)


SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.I)
REDACTED = "[REDACTED "


def harness_secrets(environ=None) -> dict[str, str]:
    """Values in our environment that look like credentials (agents never get them; if one shows up
    in a transcript anyway, it is redacted before it is written, and the sample fails answer_leak)."""
    env = os.environ if environ is None else environ
    return {k: v for k, v in env.items() if SECRET_NAME.search(k) and len(v) >= 8}


class TranscriptWriter:
    """Numbers events, stamps them, and appends each one to disk before returning it.

    A killed run therefore keeps everything up to its last step. Any value of ``secrets`` is
    replaced by ``[REDACTED NAME]`` before an event is kept or written.
    """

    def __init__(self, path: Path, secrets: dict[str, str] | None = None):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "a", encoding="utf-8")
        self._start = time.monotonic()
        self.events: list[Any] = []
        self.secrets = {k: v for k, v in (secrets or {}).items() if v}

    @classmethod
    def reopen(cls, path: Path, secrets: dict[str, str] | None = None, elapsed_s: float = 0.0) -> "TranscriptWriter":
        """Go on appending to an existing transcript from another process (``ml-debug-bench session``):
        numbering continues after its last event and ``t`` after ``elapsed_s``, the time since it began."""
        writer = cls(path, secrets)
        writer.events = read_transcript(path)
        writer._start = time.monotonic() - elapsed_s
        return writer

    def append(self, kind: str, **fields: Any):
        event = _EVENT.validate_python({"kind": kind, "id": len(self.events),
                                        "t": round(time.monotonic() - self._start, 4), **fields})
        line = event.model_dump_json()
        if self.secrets and any(v in line for v in self.secrets.values()):
            for name, value in self.secrets.items():
                line = line.replace(json.dumps(value)[1:-1], f"{REDACTED}{name}]")
            event = _EVENT.validate_python(json.loads(line))
        self._fh.write(line + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self.events.append(event)
        return event

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def read_transcript(path: Path) -> list[Any]:
    """Parse a transcript; a bad line is an error naming the file and line, not a silent skip."""
    events = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            events.append(_EVENT.validate_python(json.loads(line)))
        except (json.JSONDecodeError, ValidationError) as exc:
            raise InputError(path, f"line {n} is not a valid event: {exc}".splitlines()[0]) from exc
    return events
