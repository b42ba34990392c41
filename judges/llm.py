"""The LLM judge: one rubric call per criterion, evidence checked in code, one bounded re-ask.

A reply that breaks the schema, cites an event the agent did not write, or quotes words that
are not in the cited event is re-asked once with the failure stated; a second failure is
``unscored`` (judge_error), never pass or fail. Order facts ("ran the test", "localized before
change") are computed here from the events and the judge's labels. Every reply's tokens are
counted, rejected or not. The API plumbing is the shared ``harness.core.providers``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from harness.core.errors import ConfigError
from harness.core.pricing import PriceTable
from harness.core.providers import AuthError, ProviderError, endpoint, make_client
from harness.core.structured import STRUCTURED, SamplingSettings
from harness.models import Evidence, Verdict
from judges.cache import VerdictCache
from judges.compaction import View, agent_acted, compact
from judges.evidence import (
    call_of,
    check_citations,
    edit_calls,
    edit_events,
    executed_calls,
    final_statements,
    localized_before_change,
)
from judges.hunks import MAX_HUNKS, Hunk, list_hunks, render_hunks
from judges.key import JudgeKey
from judges.rubric import (
    DEFAULT_MAX_INPUT_TOKENS,
    PROMPT_SHA256,
    RUBRIC_VERSION,
    SYSTEM,
    Mode,
    Prompt,
    build_prompt,
    criteria_for,
    judged_criteria,
    new_boundary,
    prompt_parts,
    schema_for,
    transcript_budget,
)
from judges.vote import majority

MAX_ATTEMPTS = 2  # the first ask and one re-ask


@dataclass(frozen=True)
class JudgeSettings:
    temperature: float | None = 0.0
    seed: int | None = 0  # OpenAI only: this Messages API takes neither seed nor temperature
    max_tokens: int = 4096
    base_url: str | None = None
    max_retries: int = 2
    timeout_s: float = 300.0
    max_input_tokens: int | None = DEFAULT_MAX_INPUT_TOKENS  # per prompt (~4 characters a token); None: no cap

    def recorded(self, provider: str) -> dict[str, Any]:
        out = {"temperature": self.temperature, "seed": self.seed, "max_tokens": self.max_tokens,
               "max_input_tokens": self.max_input_tokens}
        if provider == "anthropic":  # not accepted by the installed SDK's messages.create
            out.update(temperature="unsupported", seed="unsupported")
        return out


def parse_spec(spec: str) -> tuple[str, str]:
    provider, _, model = spec.partition(":")
    if provider not in STRUCTURED or not model:
        raise ConfigError(f"--judge must be openai:MODEL or anthropic:MODEL, got '{spec}'")
    return provider, model


@dataclass
class JudgeStats:
    """Counts over a judge's life. Samples run in parallel threads share one judge, so counts are
    added under a lock (``+=`` on an attribute is not atomic)."""

    requests: int = 0
    cache_hits: int = 0
    unscored: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0  # parts of input_tokens read from / written to the provider's prompt cache
    cache_write_tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, **counts: int) -> None:
        with self._lock:
            for name, n in counts.items():
                setattr(self, name, getattr(self, name) + n)


@dataclass
class Judge:
    spec: str
    settings: JudgeSettings = field(default_factory=JudgeSettings)
    repeats: int = 1
    cache: VerdictCache = field(default_factory=lambda: VerdictCache(None))
    stats: JudgeStats = field(default_factory=JudgeStats)
    prices: PriceTable | None = None  # None: the built-in table

    prompt_sha256 = PROMPT_SHA256

    def __post_init__(self):
        self.provider, self.model = parse_spec(self.spec)
        self.price = (self.prices or PriceTable()).lookup(self.model)  # None: calls recorded with cost null
        if self.repeats < 1:
            raise ValueError("repeats must be >= 1")
        s = self.settings
        client = make_client(self.provider, None, s.base_url, s.max_retries, s.timeout_s, who=f"judge {self.spec}")
        self.base_url = endpoint(client)  # what is really called: the option, the SDK's env variable or its default
        self.backend = STRUCTURED[self.provider](client, self.model,
                                                 SamplingSettings(s.temperature, s.seed, s.max_tokens))

    @property
    def record(self) -> dict:
        """What every verdict says about the judge that produced it."""
        return {"spec": self.spec, "provider": self.provider, "base_url": self.base_url, "model": self.model,
                "settings": self.settings.recorded(self.provider), "prompt_sha256": PROMPT_SHA256,
                "rubric_version": RUBRIC_VERSION, "repeats": self.repeats}

    def view(self, events, key: JudgeKey, mode: Mode = "executed") -> View:
        """The transcript as this judge shows it: compacted to fit the input cap of every prompt."""
        budget = transcript_budget(key, mode, edit_events(events), self.settings.max_input_tokens,
                                   hunk_listing(events, key, mode))
        return compact(events, budget)

    # --- one sample ---------------------------------------------------------------

    def judge(self, events, key: JudgeKey, transcript_sha256: str, mode: Mode = "executed") -> dict[str, Verdict]:
        """Every criterion of one sample. Their prompts share one prefix, transcript included, so one boundary id
        is drawn here for the sample (fresh for each sample, never per criterion: the prefixes must be equal)."""
        view = self.view(events, key, mode)
        boundary = new_boundary()
        out = {}
        for criterion in criteria_for(mode):
            if criterion == "localization" and not key.requires_localization:
                out[criterion] = Verdict(criterion=criterion, status="not_applicable", grader="key",
                                         reason="the key does not require localization")
            elif not agent_acted(events):
                out[criterion] = Verdict(criterion=criterion, status="fail", reason="the agent produced no events",
                                         grader="judge:precheck", details={"transcript_chars": len(view.text)})
            elif criterion == "unsupported_change" and mode == "executed" and (pre := changes_precheck(events, key)):
                out[criterion] = pre
            else:
                out[criterion] = self._criterion(criterion, events, key, view, transcript_sha256, mode, boundary)
        return out

    def _criterion(self, criterion, events, key, view: View, transcript_sha256, mode, boundary: str) -> Verdict:
        edits = edit_events(events) if criterion == "localization" else None
        hunks = list_hunks(events, key.locations) if criterion == "unsupported_change" and mode == "executed" else None
        listing = render_hunks(hunks) if hunks is not None else ""
        runs = []
        input_chars = len(SYSTEM) + len(build_prompt(criterion, key, view.text, mode, edits, "0" * 16, listing))
        offered = tuple(dict.fromkeys(schema_for(c, mode) for c in judged_criteria(key, mode)))  # same for each
        for k in range(self.repeats):
            ckey = VerdictCache.key(transcript=transcript_sha256, key=key.sha256, provider=self.provider,
                                    base_url=self.base_url, model=self.model, prompt=PROMPT_SHA256,
                                    criterion=criterion, repeat=k, mode=mode,
                                    settings=self.settings.recorded(self.provider))
            run = self.cache.get(ckey)
            if run is not None:
                self.stats.add(cache_hits=1)
                run["cached"] = True
            else:
                prompt = prompt_parts(criterion, key, view.text, mode, edits, boundary, listing)
                run = self._ask(criterion, events, view, prompt, edits, mode, hunks, offered)
                if run["status"] in ("pass", "fail"):
                    self.cache.put(ckey, run)
                run["cached"] = False
            runs.append(run)
        vote = majority([r["status"] for r in runs])
        if vote.status == "unscored":
            self.stats.add(unscored=1)
        chosen = next((r for r in runs if r["status"] == vote.status), runs[0])
        return Verdict(
            criterion=criterion, status=vote.status,
            reason=vote.reason if vote.status == "unscored" else chosen.get("reason"),
            evidence=[Evidence(**e) for e in chosen.get("evidence", [])], reasoning=chosen.get("reasoning", ""),
            grader=f"llm:{self.spec}",
            details={"judge": self.record, "votes": vote.votes, "agreement": vote.agreement,
                     "input_chars": input_chars,
                     "transcript_chars": len(view.text), "cut_chars": view.cut_chars, "runs": runs})

    # --- one repeat: ask, verify, re-ask once -------------------------------------------

    def _ask(self, criterion, events, view, prompt: Prompt, edits, mode, hunks: list[Hunk] | None = None,
             offered: tuple = ()) -> dict:
        """``offered``: the answer schemas of every criterion sharing ``prompt.prefix`` (Anthropic offers them all as
        tools in each of these requests, or its prompt cache could not serve the prefix from one to the next)."""
        schema = schema_for(criterion, mode)
        messages = self.backend.start(SYSTEM, prompt.prefix, prompt.tail)
        run = {"status": "unscored", "reason": "judge_error", "attempts": 0, "problems": [],
               "input_tokens": 0, "output_tokens": 0}
        for attempt in range(1, MAX_ATTEMPTS + 1):
            run["attempts"] = attempt
            self.stats.add(requests=1)
            try:
                reply = self.backend.ask(messages, schema, offered)
            except AuthError:
                raise  # a refused key: every further call would fail the same way
            except ProviderError as exc:
                run["problems"].append(f"api error: {exc}")
                return run
            self._count(run, reply.usage)
            problems = [reply.problem] if reply.problem else self._verify(criterion, events, view, reply.parsed, edits,
                                                                          hunks)
            final = attempt == MAX_ATTEMPTS
            if not problems:
                facts = (changes_facts(events, reply.parsed, hunks) if hunks is not None
                         else self._facts(criterion, events, reply.parsed, mode))
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

    def _count(self, run: dict, usage) -> None:
        """One call's tokens and cost (cache reads and writes at their own rates; None when unpriced) on its run."""
        run["input_tokens"] += usage.input_tokens
        run["output_tokens"] += usage.output_tokens
        run["cache_read_tokens"] = run.get("cache_read_tokens", 0) + usage.cache_read_tokens
        run["cache_write_tokens"] = run.get("cache_write_tokens", 0) + usage.cache_write_tokens
        cost = self.price.cost(usage.input_tokens, usage.output_tokens, usage.cache_read_tokens,
                               usage.cache_write_tokens) if self.price else None
        previous = run.get("cost_usd", 0.0)
        run["cost_usd"] = None if cost is None or previous is None else round(previous + cost, 8)
        self.stats.add(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                       cache_read_tokens=usage.cache_read_tokens, cache_write_tokens=usage.cache_write_tokens)

    @staticmethod
    def _verify(criterion, events, view, answer, edits, hunks: list[Hunk] | None = None) -> list[str]:
        cites = [(c.event_id, c.quote) for c in answer.evidence]
        if hunks is not None:
            return verify_hunk_labels(events, view, answer, hunks)
        problems = check_citations(events, view, cites, require_one=answer.verdict == "pass")
        if criterion == "root_cause" and answer.verdict == "pass" and cites and not problems:
            final = final_statements(events)
            if not any(i in final for i, _ in cites):
                problems.append("a root_cause pass must cite the agent's final committed diagnosis: the final report"
                                + (f" ({', '.join(f'E{i}' for i in sorted(final))})" if final else "")
                                + ", or its last message when there is no report")
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
            ran, calls = executed_calls(events), call_of(events)
            cited = sorted({calls.get(c.event_id, c.event_id) for c in answer.evidence} & ran)
            if not cited:
                return {"status": "fail", "reason": "test_not_executed",
                        "retry": "a pass must cite the tool_call event that ran the test, or its tool_result (a call "
                                 "that has a result); none of the cited events is one. Cite it, or answer fail."}
            return {"executed_calls": cited}
        if criterion == "localization":
            behaviour = sorted(e.event_id for e in answer.edits if e.behaviour_changing)
            first = min(c.event_id for c in answer.evidence)
            ok, why = localized_before_change(first, behaviour, edit_calls(events))
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
        if hasattr(answer, "hunks"):
            out["hunks"] = [h.model_dump() for h in answer.hunks]
        return out


# --- unsupported_change: the hunks come from the events, the verdict from the labels --------------


def hunk_listing(events, key: JudgeKey, mode: Mode) -> str:
    """The 'Hunks to label' text of this transcript's unsupported_change prompt ('' for a written plan)."""
    return render_hunks(list_hunks(events, key.locations)) if mode == "executed" else ""


def changes_precheck(events, key: JudgeKey) -> Verdict | None:
    """unsupported_change without a model call, when the hunks alone decide it: nothing outside the key's
    locations survives (pass), or too many changes to label one by one (fail)."""
    hunks = list_hunks(events, key.locations)
    listed = [h for h in hunks if h.to_label]
    details = {"hunks": [h.model_dump(exclude={"text"}) for h in hunks]}
    if not listed:
        return Verdict(criterion="unsupported_change", status="pass", grader="judge:computed", details=details,
                       reason="no change outside the key's locations survives in the final files")
    cut = [h for h in listed if h.cut]
    if cut:
        return Verdict(criterion="unsupported_change", status="fail", grader="judge:computed", details=details,
                       reason="unreviewable_change: " + ", ".join(f"{h.id} ({h.path} E{h.event_id})" for h in cut)
                              + " changed more outside the key's locations than the harness records whole; "
                                "a change nobody can see cannot be supported")
    if len(listed) > MAX_HUNKS:
        return Verdict(criterion="unsupported_change", status="fail", grader="judge:computed", details=details,
                       reason=f"too_many_changes: {len(listed)} changed hunks outside the key's locations "
                              f"(at most {MAX_HUNKS} can be labelled)")
    return None


def verify_hunk_labels(events, view: View, answer, hunks: list[Hunk]) -> list[str]:
    """Every listed hunk labelled exactly once, and every citation (evidence and support) acceptable."""
    listed = [h.id for h in hunks if h.to_label]
    labelled = [h.hunk for h in answer.hunks]
    problems = check_citations(events, view, [(c.event_id, c.quote) for c in answer.evidence], require_one=False)
    missing = [h for h in listed if h not in labelled]
    extra = sorted(set(labelled) - set(listed))
    twice = sorted({h for h in labelled if labelled.count(h) > 1})
    if missing:
        problems.append("hunks: label every listed hunk; missing " + ", ".join(missing))
    if extra:
        problems.append("hunks: only label the listed hunks; not listed: " + ", ".join(extra))
    if twice:
        problems.append("hunks: label each hunk once; twice: " + ", ".join(twice))
    for label in answer.hunks:
        if label.supported and label.behaviour_changing and not label.support:
            problems.append(f"hunks: {label.hunk} is labelled supported without citing the observation that "
                            "supports it")
        problems += [f"hunks {label.hunk} support: {p}" for p in
                     check_citations(events, view, [(c.event_id, c.quote) for c in label.support], require_one=False)]
    return problems


def changes_facts(events, answer, hunks: list[Hunk]) -> dict:
    """The verdict from the labels: FAIL when a behaviour-changing hunk has no support, where support
    must include a command the agent ran (its tool_call with a result, or that result) before the tool
    call that made the change. A support that fails this is counted as none."""
    ran, calls = executed_calls(events), call_of(events)
    by_id = {h.id: h for h in hunks}
    unsupported, overturned = [], []
    for label in answer.hunks:
        if not label.behaviour_changing or label.hunk not in by_id:
            continue
        hunk = by_id[label.hunk]
        made_at = hunk.made_by if hunk.made_by is not None else hunk.event_id
        observed = [calls.get(c.event_id, c.event_id) for c in label.support]
        before = [i for i in observed if i in ran and i < made_at]
        if not label.supported:
            unsupported.append(hunk.id)
        elif not before:
            unsupported.append(hunk.id)
            overturned.append(hunk.id)
    facts = {"unsupported_hunks": unsupported, "support_overturned": overturned,
             "hunks_listed": [h.id for h in hunks if h.to_label]}
    if unsupported:
        facts.update(status="fail", reason="unsupported_change: " + ", ".join(
            f"{h} ({by_id[h].path} E{by_id[h].event_id})" for h in unsupported))
    else:
        facts["status"] = "pass"
    return facts
