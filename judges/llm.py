"""The LLM judge: one rubric call per criterion, evidence checked in code, one bounded re-ask.

A reply that breaks the schema or cites a quote that is not in the raw transcript is
re-asked once with the failure stated; a second failure is ``unscored`` (judge_error),
never pass or fail. Order facts ("ran the test", "localized before change") are computed
here from the events and the judge's labels.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.models import CRITERIA_LLM, Evidence, Verdict
from judges.backends import JudgeAPIError, JudgeSettings, make_backend, parse_spec
from judges.cache import VerdictCache
from judges.compaction import agent_acted, compact
from judges.evidence import check_citations, edit_candidates, executed_calls, localized_before_change
from judges.key import JudgeKey
from judges.rubric import PROMPT_SHA256, RUBRIC_VERSION, SCHEMAS, SYSTEM, Mode, build_prompt
from judges.vote import majority

MAX_ATTEMPTS = 2  # the first ask and one re-ask


@dataclass
class JudgeStats:
    requests: int = 0
    cache_hits: int = 0
    unscored: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass
class Judge:
    spec: str
    settings: JudgeSettings = field(default_factory=JudgeSettings)
    repeats: int = 1
    cache: VerdictCache = field(default_factory=lambda: VerdictCache(None))
    backend: object = None
    stats: JudgeStats = field(default_factory=JudgeStats)

    def __post_init__(self):
        self.provider, self.model = parse_spec(self.spec)
        if self.repeats < 1:
            raise ValueError("repeats must be >= 1")
        if self.backend is None:
            self.backend = make_backend(self.spec, self.settings)

    prompt_sha256 = PROMPT_SHA256

    @property
    def record(self) -> dict:
        """What every verdict says about the judge that produced it."""
        return {"spec": self.spec, "provider": self.provider, "model": self.model,
                "settings": self.settings.recorded(self.provider), "prompt_sha256": PROMPT_SHA256,
                "rubric_version": RUBRIC_VERSION, "repeats": self.repeats}

    # --- one sample ---------------------------------------------------------------

    def judge(self, events, key: JudgeKey, transcript_sha256: str, mode: Mode = "executed") -> dict[str, Verdict]:
        transcript = compact(events)
        out = {}
        for criterion in CRITERIA_LLM:
            if criterion == "localization" and not key.requires_localization:
                out[criterion] = Verdict(criterion=criterion, status="not_applicable", grader="key",
                                         reason="the key does not require localization")
            elif not agent_acted(events):
                out[criterion] = Verdict(criterion=criterion, status="fail", reason="the agent produced no events",
                                         grader="judge:precheck", details={"transcript_chars": len(transcript)})
            else:
                out[criterion] = self._criterion(criterion, events, key, transcript, transcript_sha256, mode)
        return out

    def _criterion(self, criterion, events, key, transcript, transcript_sha256, mode) -> Verdict:
        edits = edit_candidates(events) if criterion == "localization" else None
        prompt = build_prompt(criterion, key, transcript, mode, edits)
        runs = []
        for k in range(self.repeats):
            ckey = VerdictCache.key(transcript=transcript_sha256, key=key.sha256, judge=self.spec,
                                    prompt=PROMPT_SHA256, criterion=criterion, repeat=k, mode=mode,
                                    settings=self.settings.recorded(self.provider))
            run = self.cache.get(ckey)
            if run is not None:
                self.stats.cache_hits += 1
                run["cached"] = True
            else:
                run = self._ask(criterion, events, prompt, edits, mode)
                if run["status"] in ("pass", "fail"):
                    self.cache.put(ckey, run)
                run["cached"] = False
            runs.append(run)
        vote = majority([r["status"] for r in runs])
        if vote.status == "unscored":
            self.stats.unscored += 1
        chosen = next((r for r in runs if r["status"] == vote.status), runs[0])
        return Verdict(
            criterion=criterion, status=vote.status,
            reason=vote.reason if vote.status == "unscored" else chosen.get("reason"),
            evidence=[Evidence(**e) for e in chosen.get("evidence", [])], reasoning=chosen.get("reasoning", ""),
            grader=f"llm:{self.spec}",
            details={"judge": self.record, "votes": vote.votes, "agreement": vote.agreement,
                     "input_chars": len(SYSTEM) + len(prompt), "transcript_chars": len(transcript),
                     "runs": runs})

    # --- one repeat: ask, verify, re-ask once -------------------------------------------

    def _ask(self, criterion, events, prompt, edits, mode) -> dict:
        schema = SCHEMAS[criterion]
        messages = self.backend.start(SYSTEM, prompt)
        run = {"status": "unscored", "reason": "judge_error", "attempts": 0, "problems": [],
               "input_tokens": 0, "output_tokens": 0}
        for attempt in range(1, MAX_ATTEMPTS + 1):
            run["attempts"] = attempt
            self.stats.requests += 1
            try:
                reply = self.backend.ask(messages, schema)
            except JudgeAPIError as exc:
                run["problems"].append(f"api error: {exc}")
                return run
            run["input_tokens"] += reply.input_tokens
            run["output_tokens"] += reply.output_tokens
            self.stats.input_tokens += reply.input_tokens
            self.stats.output_tokens += reply.output_tokens
            problems = [reply.problem] if reply.problem else self._verify(criterion, events, reply.parsed, edits)
            final = attempt == MAX_ATTEMPTS
            if not problems:
                facts = self._facts(criterion, events, reply.parsed, mode)
                if facts.get("retry") and not final:
                    problems = [facts["retry"]]
                else:
                    run.update(self._outcome(reply.parsed, facts))
                    return run
            run["problems"].extend(problems)
            if final:
                return run
            self.backend.follow_up(messages, "Your answer was rejected:\n" + "\n".join(f"- {p}" for p in problems)
                                   + "\nRe-read the transcript and answer again with the schema. Copy every quote "
                                   "exactly from the event you cite.")
        return run

    @staticmethod
    def _verify(criterion, events, answer, edits) -> list[str]:
        cites = [(c.event_id, c.quote) for c in answer.evidence]
        problems = check_citations(events, cites, require_one=answer.verdict == "pass")
        if criterion == "localization":
            labelled = {e.event_id for e in answer.edits}
            missing = [i for i in edits if i not in labelled]
            extra = sorted(labelled - set(edits))
            if missing:
                problems.append("edits: label every listed edit; missing " + ", ".join(f"E{i}" for i in missing))
            if extra:
                problems.append("edits: only label the listed edits; not listed: " + ", ".join(f"E{i}" for i in extra))
        return problems

    @staticmethod
    def _facts(criterion, events, answer, mode) -> dict:
        """Computed facts that can overturn a pass (never turn a fail into a pass)."""
        if answer.verdict != "pass":
            return {}
        if criterion == "discriminating_test" and mode == "executed":
            ran = executed_calls(events)
            cited = sorted(c.event_id for c in answer.evidence if c.event_id in ran)
            if not cited:
                return {"status": "fail", "reason": "test_not_executed",
                        "retry": "a pass must cite the tool_call event that ran the test (a tool call that has a "
                                 "result); none of the cited events is one. Cite it, or answer fail."}
            return {"executed_calls": cited}
        if criterion == "localization":
            behaviour = sorted(e.event_id for e in answer.edits if e.behaviour_changing)
            first = min(c.event_id for c in answer.evidence)
            ok, why = localized_before_change(first, behaviour)
            facts = {"localizing_event": first, "behaviour_edits": behaviour, "order": why}
            if not ok:
                facts.update(status="fail", reason="changed_before_localizing")
            return facts
        return {}

    @staticmethod
    def _outcome(answer, facts: dict) -> dict:
        facts = {k: v for k, v in facts.items() if k != "retry"}
        status = facts.pop("status", answer.verdict)
        out = {"status": status, "reason": facts.pop("reason", None), "judge_verdict": answer.verdict,
               "evidence": [c.model_dump() for c in answer.evidence], "reasoning": answer.reasoning, **facts}
        if hasattr(answer, "edits"):
            out["edits"] = [e.model_dump() for e in answer.edits]
        return out
