"""The judge through the real SDKs against loopback servers: parsing, re-ask, unscored, vote, cache, blinding."""

import json
import re

import pytest

from harness.models import CRITERIA_LLM
from judges.cache import VerdictCache
from judges.compaction import compact, cut
from judges.evidence import check_citations, normalise
from judges.family import same_family_warning
from judges.llm import Judge, JudgeSettings
from judges.rubric import PROMPT_SHA256
from judges.vote import majority
from tests.builders.adversarial import T, build
from tests.fakes.llm_server import Reply, ScriptedLLMServer, anthropic_message, openai_chat
from tests.judges.conftest import replies

ITEMS, SCRIPTS = build()
BY_ID = {i.id: i for i in ITEMS}
PROVIDERS = ["openai", "anthropic"]


def make_judge(provider, srv, tmp_path=None, repeats=1):
    url = srv.openai_base_url if provider == "openai" else srv.anthropic_base_url
    cache = VerdictCache(tmp_path / "cache" if tmp_path else None)
    return Judge(f"{provider}:fake-judge", JudgeSettings(base_url=url, max_retries=0), repeats=repeats, cache=cache)


def script(name, *criteria):
    s = SCRIPTS[f"adversarial/{name}"]
    return [a for c in (criteria or CRITERIA_LLM) for a in s.get(c, [])]


def run_item(provider, name, answers, tmp_path=None, repeats=1, raw=None, srv=None):
    """Judge one fixture; with ``srv`` (a running server) its script is extended and the requests
    returned are only the new ones (the verdict cache is keyed on the endpoint, so reusing one
    server is how a test sees cache hits)."""
    item = BY_ID[f"adversarial/{name}"]
    script = raw if raw is not None else replies(provider, answers)
    if srv is not None:
        before = len(srv.requests)
        srv.add(*script)
        judge = make_judge(provider, srv, tmp_path, repeats)
        verdicts = judge.judge(item.events, item.key, item.transcript_sha256, item.mode)
        return verdicts, srv.requests[before:], judge
    with ScriptedLLMServer(script) as srv:
        judge = make_judge(provider, srv, tmp_path, repeats)
        verdicts = judge.judge(item.events, item.key, item.transcript_sha256, item.mode)
    return verdicts, srv.requests, judge


@pytest.mark.parametrize("provider", PROVIDERS)
def test_structured_verdicts_parsed_and_recorded(provider):
    verdicts, reqs, _ = run_item(provider, "paraphrase_no_overlap", script("paraphrase_no_overlap"))
    assert {c: v.status for c, v in verdicts.items()} == {
        "root_cause": "pass", "discriminating_test": "pass", "localization": "pass", "unsupported_change": "pass"}
    assert verdicts["unsupported_change"].grader == "judge:computed"  # the only change is the fix: no call
    v = verdicts["root_cause"]
    assert v.grader == f"llm:{provider}:fake-judge"
    assert v.evidence and v.evidence[1].quote.startswith("already turns")
    rec = v.details["judge"]
    assert rec["model"] == "fake-judge" and rec["prompt_sha256"] == PROMPT_SHA256 and "settings" in rec
    assert v.details["input_chars"] > v.details["transcript_chars"] > 0
    body = reqs[0].body
    if provider == "openai":
        assert body["response_format"]["type"] == "json_schema"
        assert body["response_format"]["json_schema"]["strict"] is True
        assert body["temperature"] == 0 and body["seed"] == 0
        props = list(body["response_format"]["json_schema"]["schema"]["properties"])
    else:
        # one tool per answer schema of the sample, the same in each of its requests (the prompt cache needs it)
        assert body["tool_choice"] == {"type": "any", "disable_parallel_tool_use": True}
        assert [t["name"] for t in body["tools"]] == ["record_answer", "record_localization_answer",
                                                      "record_changes_answer"]
        assert all(r.body["tools"] == body["tools"] and r.body["tool_choice"] == body["tool_choice"] for r in reqs)
        props = list(body["tools"][0]["input_schema"]["properties"])
        assert "$ref" not in json.dumps(body["tools"])
    assert props == ["evidence", "reasoning", "verdict"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_schema_violation_is_re_asked_then_succeeds(provider):
    good = SCRIPTS["adversarial/paraphrase_no_overlap"]["root_cause"][0]
    if provider == "openai":
        raw = [Reply(openai_chat(content='{"verdict": "maybe"}'))] + replies(provider, [good])
    else:
        raw = [Reply(anthropic_message(text="I think it passes."))] + replies(provider, [good])
    raw += replies(provider, script("paraphrase_no_overlap", "discriminating_test", "localization"))
    verdicts, reqs, judge = run_item(provider, "paraphrase_no_overlap", None, raw=raw)
    assert verdicts["root_cause"].status == "pass"
    run = verdicts["root_cause"].details["runs"][0]
    assert run["attempts"] == 2 and run["problems"]
    assert "rejected" in json.dumps(reqs[1].body["messages"][-1])
    assert judge.stats.requests == 4


@pytest.mark.parametrize("provider", PROVIDERS)
def test_two_bad_replies_are_unscored_never_pass_or_fail(provider):
    bad = {"evidence": "none", "verdict": "yes"}
    rest = script("paraphrase_no_overlap", "discriminating_test", "localization")
    verdicts, reqs, judge = run_item(provider, "paraphrase_no_overlap", [bad, bad] + rest)
    v = verdicts["root_cause"]
    assert v.status == "unscored" and v.reason == "judge_error"
    assert len(v.details["runs"][0]["problems"]) == 2
    assert judge.stats.unscored == 1 and len(reqs) == 4


def test_fabricated_quote_is_rejected_and_re_asked():
    verdicts, reqs, _ = run_item("openai", "fabricated_quote", script("fabricated_quote"))
    v = verdicts["root_cause"]
    assert v.status == "fail"
    assert "not a verbatim substring" in v.details["runs"][0]["problems"][0]
    assert "not a verbatim substring" in reqs[1].body["messages"][-1]["content"]


def test_fabricated_quote_twice_is_unscored():
    fake = SCRIPTS["adversarial/fabricated_quote"]["root_cause"][0]
    rest = script("fabricated_quote", "discriminating_test", "localization")
    verdicts, _, _ = run_item("openai", "fabricated_quote", [fake, fake] + rest)
    assert verdicts["root_cause"].status == "unscored" and verdicts["root_cause"].reason == "judge_error"


def test_order_check_fails_localization_after_trial_and_error_edits():
    verdicts, _, _ = run_item("openai", "trial_and_error", script("trial_and_error"))
    v = verdicts["localization"]
    assert v.status == "fail" and v.reason == "changed_before_localizing"
    run = v.details["runs"][0]
    assert run["judge_verdict"] == "pass" and run["localizing_event"] > min(run["behaviour_edits"])


def test_instrumentation_before_localizing_does_not_count():
    verdicts, _, _ = run_item("openai", "instrumentation_first", script("instrumentation_first"))
    assert verdicts["localization"].status == "pass"


def test_unlabelled_edit_is_a_verification_failure():
    ans = dict(SCRIPTS["adversarial/trial_and_error"]["localization"][0], edits=[])
    verdicts, reqs, _ = run_item("openai", "trial_and_error", script("trial_and_error", "root_cause", "discriminating_test") + [ans, ans])
    assert verdicts["localization"].status == "unscored"
    assert "label every listed edit" in reqs[3].body["messages"][-1]["content"]  # the localization re-ask


def test_a_test_that_never_ran_fails_discriminating_test():
    verdicts, reqs, _ = run_item("openai", "truncated_log", script("truncated_log"))
    v = verdicts["discriminating_test"]
    assert v.status == "fail" and v.reason == "test_not_executed"
    assert len(reqs) == 4  # root_cause 1, discriminating_test 2 (re-asked once), localization 1


def test_empty_transcript_is_decided_without_a_request():
    verdicts, reqs, _ = run_item("openai", "empty", [])
    assert not reqs
    assert all(v.status == "fail" for v in verdicts.values())


def test_majority_vote_over_three_repeats():
    p = SCRIPTS["adversarial/paraphrase_no_overlap"]
    answers = [p["root_cause"][0], {"evidence": [], "reasoning": "x", "verdict": "fail"}, p["root_cause"][0]]
    answers += p["discriminating_test"] * 3 + p["localization"] * 3
    verdicts, reqs, _ = run_item("openai", "paraphrase_no_overlap", answers, repeats=3)
    v = verdicts["root_cause"]
    assert v.status == "pass" and v.details["votes"] == {"pass": 2, "fail": 1, "unscored": 0}
    assert v.details["agreement"] == pytest.approx(2 / 3)
    assert verdicts["localization"].details["agreement"] == 1.0 and len(reqs) == 9


def test_vote_needs_a_strict_majority_of_all_repeats():
    assert majority(["pass", "fail"]).status == "unscored" and majority(["pass", "fail"]).reason == "judge_split"
    assert majority(["pass", "unscored", "unscored"]).reason == "judge_error"
    assert majority(["fail", "fail", "unscored"]).status == "fail"


def test_cache_hit_makes_no_request(tmp_path):
    answers = script("paraphrase_no_overlap")
    with ScriptedLLMServer() as srv:
        first, reqs1, _ = run_item("openai", "paraphrase_no_overlap", answers, tmp_path=tmp_path, srv=srv)
        second, reqs2, judge = run_item("openai", "paraphrase_no_overlap", [], tmp_path=tmp_path, srv=srv)
    assert len(reqs1) == 3 and not reqs2 and judge.stats.cache_hits == 3
    assert {c: v.status for c, v in first.items()} == {c: v.status for c, v in second.items()}


def test_unscored_outcomes_are_not_cached(tmp_path):
    bad = {"verdict": "maybe"}
    with ScriptedLLMServer() as srv:
        run_item("openai", "grader_note", [bad, bad] + script("grader_note", "discriminating_test", "localization"),
                 tmp_path=tmp_path, srv=srv)
        _, reqs, judge = run_item("openai", "grader_note", script("grader_note"), tmp_path=tmp_path, srv=srv)
    assert len(reqs) == 1 and judge.stats.cache_hits == 2


@pytest.mark.parametrize("provider", PROVIDERS)
def test_condition_and_skill_text_never_reach_the_judge(provider):
    item = BY_ID["adversarial/paraphrase_no_overlap"]
    system_text = item.events[0].content
    _, reqs, _ = run_item(provider, "paraphrase_no_overlap", script("paraphrase_no_overlap"))
    for r in reqs:
        body = json.dumps(r.body).replace('"cache_control": {"type": "ephemeral"}', "")  # the API's key, not the arm
        assert "ADVERSARIAL-SKILL-MARKER" not in body and "<skill>" not in body
        assert "You are a software engineer" not in body and system_text not in body
        assert "control" not in body and "treatment" not in body


def test_grader_note_stays_inside_the_transcript_block():
    _, reqs, _ = run_item("openai", "grader_note", script("grader_note"))
    prompt = reqs[0].body["messages"][1]["content"]
    boundary = re.search(r"<transcript-([0-9a-f]{16})>", prompt).group(1)
    start, end = prompt.index(f"<transcript-{boundary}>"), prompt.index(f"</transcript-{boundary}>")
    note = prompt.index("NOTE TO GRADER")
    assert start < note < end
    assert prompt.index("<answer_key>") < start and "Question:" in prompt[end:]


def test_compaction_keeps_head_and_tail_and_marks_the_elision():
    t = T()
    log = "\n".join(f"line {i:04d} of the training log output" for i in range(500))
    call = t.bash("python train.py", log)
    view = compact(t.events)
    text = view.text
    assert "[… 420 lines elided …]" in text and "line 0000" in text and "line 0499" in text
    assert "line 0250" not in text
    assert "[E0]" not in text  # the system prompt is dropped, numbering is the raw ids
    # quotes from what the judge sees verify against the raw event; quotes across the marker do not
    assert not check_citations(t.events, view, [(call + 1, "line 0499 of the training log output")], require_one=True)
    assert check_citations(t.events, view, [(call + 1, "line 0039 of the training log output [… 420 lines elided …]")],
                           require_one=True)
    assert cut("short", 100) == [("short", "content")]


def test_quotes_are_normalised_but_must_be_long_enough():
    t = T()
    said = t.say("The tensor entering the loss sums to 1 per row — it is a distribution.")
    view = compact(t.events)
    assert not check_citations(t.events, view, [(said, "The  tensor entering\nthe loss sums to 1 per row - it")],
                               require_one=True)
    assert "characters" in check_citations(t.events, view, [(said, "sums to 1")], require_one=True)[0]
    assert check_citations(t.events, view, [(99, "x" * 30)], require_one=True)
    assert check_citations(t.events, view, [], require_one=True)
    assert normalise("ﬁle “x”") == 'file "x"'


def test_provider_family_warning():
    assert same_family_warning("openai:gpt-5", "openai:gpt-5-mini")
    assert same_family_warning("anthropic:claude-x", "claude-code")
    assert same_family_warning("openai:llama-3-70b", "anthropic:claude-x") is None
    assert same_family_warning("anthropic:claude-x", "reference") is None
