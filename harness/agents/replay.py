"""``--agent replay:RUN_DIR``: re-grade saved work without running any agent.

Two kinds of folder are read:

* one of our run folders (``manifest.json``, ``samples.jsonl``, ``transcripts/``, ``diffs/``):
  each sample's saved events are copied into the new transcript (not the system and task
  messages, which the runner writes afresh), its saved diff is applied to the fresh workspace
  and its report and status are kept, so the new run grades exactly what the old one produced;
* a folder of Codex CLI text logs (``events/CONDITION/CASE.stderr``, as ``codex exec`` prints them
  without ``--json``; ``treatment`` is read as our ``skill`` condition): each log becomes a
  user message, the assistant's final text and a usage event; a JSON final answer with a
  ``root_cause`` field becomes the report. These logs hold no diff, so fix criteria fail.

The nth time a (case, condition) is asked for, the nth saved epoch is replayed.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

from pydantic import ValidationError

from harness.agents.base import AgentOutcome, AgentTask
from harness.core.errors import ConfigError, InputError
from harness.models import Report, TokenUsage

SEED_CONDITIONS = {"control": "control", "treatment": "skill", "skill": "skill"}
SECTION = re.compile(r"^(user|codex|thinking|exec|tokens used|warning:.*|ERROR:.*)$")


def parse_codex_text_log(text: str) -> dict:
    """A ``codex exec`` text log -> {"header": {...}, "prompt", "final", "tokens", "sections": [(name, body)]}.

    The log is a header between ``--------`` lines, then sections each opened by a line naming it
    (``user``, ``codex``, ``thinking``, ``exec``, ``tokens used``) or a one-line ``warning: ...``."""
    lines = text.splitlines()
    header: dict[str, str] = {}
    i = 0
    if len(lines) > 1 and lines[1].startswith("--------"):
        i = 2
        while i < len(lines) and not lines[i].startswith("--------"):
            key, _, value = lines[i].partition(":")
            header[key.strip()] = value.strip()
            i += 1
        i += 1
    sections: list[tuple[str, list[str]]] = []
    for line in lines[i:]:
        if SECTION.match(line):
            sections.append((line, []))
        elif sections:
            sections[-1][1].append(line)
    bodies = [(name, "\n".join(body).strip("\n")) for name, body in sections]
    prompt = next((b for n, b in bodies if n == "user"), "")
    finals = [b for n, b in bodies if n == "codex"]
    tokens = next((b for n, b in bodies if n == "tokens used"), "")
    return {"header": header, "prompt": prompt, "final": finals[-1] if finals else None,
            "tokens": int(tokens.replace(",", "").split()[0]) if tokens.strip() else None, "sections": bodies}


def report_from_answer(final: str | None) -> Report | None:
    """A final answer that is a JSON object with ``root_cause`` -> our Report (lists joined)."""
    try:
        data = json.loads(final or "")
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or "root_cause" not in data:
        return None

    def text(v) -> str:
        return "; ".join(map(str, v)) if isinstance(v, list) else ("" if v is None else str(v))

    fix = data.get("fix") or data.get("immediate_changes") or data.get("first_action")
    return Report(root_cause=text(data["root_cause"]), location=text(data.get("location")), fix=text(fix),
                  evidence=text(data.get("evidence")))


class ReplayAgent:
    def __init__(self, source: Path):
        self.source = Path(source)
        if not self.source.is_dir():
            raise ConfigError(f"replay: '{source}' is not a folder")
        self.kind = "run" if (self.source / "samples.jsonl").exists() else \
            "codex_logs" if (self.source / "events").is_dir() else None
        if self.kind is None:
            raise ConfigError(f"replay: '{source}' is neither a run folder (samples.jsonl) "
                              "nor a folder of Codex text logs (events/CONDITION/CASE.stderr)")
        self.name = f"replay:{self.source.name}"
        self.settings = {"replay_of": str(self.source.resolve()), "source_kind": self.kind}
        self.served: dict[tuple[str, str], int] = defaultdict(int)
        if self.kind == "run":
            from harness.core.results import read_manifest, read_samples
            self.samples = read_samples(self.source)
            if (self.source / "manifest.json").exists():
                self.settings["original_agent"] = read_manifest(self.source).agent

    def check_limits(self, limits) -> None:
        """Every budget applies as given: the runner enforces steps and wall time."""

    def run(self, task: AgentTask) -> AgentOutcome:
        condition = "skill" if task.skill_path is not None or task.skill_text else "control"
        n = self.served[(task.case_id, condition)]
        self.served[(task.case_id, condition)] += 1
        if self.kind == "run":
            return self._replay_run(task, condition, n)
        return self._replay_codex_log(task, condition)

    def _replay_run(self, task: AgentTask, condition: str, n: int) -> AgentOutcome:
        from harness.core.transcript import read_transcript
        from harness.workspaces.workspace import apply_patch

        matches = sorted((s for s in self.samples if s.case_id == task.case_id and s.condition == condition),
                         key=lambda s: s.epoch)
        if n >= len(matches):
            raise ConfigError(f"replay: {self.source} has {len(matches)} saved sample(s) of "
                              f"{task.case_id}/{condition}; asked for epoch {n}")
        saved = matches[n]
        events = read_transcript(self.source / saved.transcript)
        skip = 2 if len(events) >= 2 and all(e.kind == "message" for e in events[:2]) else 0
        for e in events[skip:]:
            fields = e.model_dump(exclude={"id", "t", "kind"})
            task.transcript.append(e.kind, **fields)
        diff = (self.source / saved.diff).read_text(encoding="utf-8") if (self.source / saved.diff).exists() else ""
        if diff.strip():
            try:
                apply_patch(task.workspace, diff)
            except Exception as exc:
                raise InputError(self.source / saved.diff, f"the saved diff does not apply to the case: {exc}") from exc
            task.tools.watcher.changes()  # already recorded as file_edit events in the copied transcript
        return AgentOutcome(status=saved.status, report=saved.report, error=saved.error, usage=saved.usage,
                            tool_errors=saved.tool_errors)

    def _replay_codex_log(self, task: AgentTask, condition: str) -> AgentOutcome:
        folders = [k for k, v in SEED_CONDITIONS.items() if v == condition]
        log = next((self.source / "events" / f / f"{task.case_id}.stderr" for f in folders
                    if (self.source / "events" / f / f"{task.case_id}.stderr").exists()), None)
        if log is None:
            raise ConfigError(f"replay: no Codex log for {task.case_id}/{condition} under {self.source / 'events'}")
        parsed = parse_codex_text_log(log.read_text(encoding="utf-8", errors="replace"))
        tr = task.transcript
        tr.append("message", role="user", content=f"[replayed prompt from {log.name}]\n{parsed['prompt']}")
        for name, body in parsed["sections"]:
            if name.startswith(("warning:", "ERROR:")):
                tr.append("error", error_type="cli_warning", message=name)
            elif name == "thinking" and body:
                tr.append("message", role="assistant", content=f"[thinking] {body}")
        if parsed["final"] is not None:
            tr.append("message", role="assistant", content=parsed["final"])
        model = parsed["header"].get("model", "?")
        if parsed["tokens"] is not None:  # the log gives one total; recorded as input (the split is unknown)
            tr.append("usage", model=model, input_tokens=parsed["tokens"], output_tokens=0)
        usage = TokenUsage(input_tokens=parsed["tokens"] or 0, output_tokens=0)
        try:
            report = report_from_answer(parsed["final"])
        except ValidationError:
            report = None
        if report is None:
            return AgentOutcome(status="agent_error", error="report_missing: the replayed log has no JSON report",
                                usage=usage)
        tr.append("report", report=report)
        return AgentOutcome(status="completed", report=report, usage=usage)


def create(spec: str, root, **options) -> ReplayAgent:
    return ReplayAgent(Path(spec.partition(":")[2]))
