"""`run --judge`, `judge`, `judge-eval`, `import-seed` and `report` end to end, against fake servers."""

import json

from typer.testing import CliRunner

from harness.cli import app
from harness.core.results import read_manifest, read_samples
from harness.core.transcript import read_transcript
from harness.models import CRITERIA_LLM
from judges.evidence import edit_events
from tests.builders.adversarial import FIXTURE, build
from tests.fakes.llm_server import ScriptedLLMServer
from tests.judges.conftest import KEYS, replies
from tests.judges.test_judge_core import SCRIPTS
from tests.judges.test_seed_and_metaeval import SEED, needs_seed

cli = CliRunner()


def invoke(args, srv=None, provider="openai", **env):
    if srv is not None:
        env["OPENAI_BASE_URL" if provider == "openai" else "ANTHROPIC_BASE_URL"] = srv.openai_base_url \
            if provider == "openai" else srv.anthropic_base_url
    return cli.invoke(app, args, env={**KEYS, **env})


def reference_answers(run_dir):
    """A correct judge's replies for the reference transcript, citing its real events."""
    (sample,) = read_samples(run_dir)
    events = read_transcript(run_dir / sample.transcript)

    def find(kind, text):
        return next(e.id for e in events if e.kind == kind and text in json.dumps(e.model_dump()))

    report = next(e for e in events if e.kind == "report")
    probe = find("tool_call", "CrossEntropyLoss()(fn(), y).backward()")
    grep = find("tool_result", "return logits.softmax")
    def cite(i, q):
        return {"event_id": i, "quote": q}
    return [
        {"evidence": [cite(report.id, report.report.root_cause[:60])], "reasoning": "matches the key", "verdict": "pass"},
        {"evidence": [cite(probe, "nn.CrossEntropyLoss()(fn(), y).backward()")], "reasoning": "ran it", "verdict": "pass"},
        {"evidence": [cite(grep, "return logits.softmax(dim=-1)")],
         "edits": [{"event_id": i, "behaviour_changing": True} for i in edit_events(events)],
         "reasoning": "grep before the fix", "verdict": "pass"},
    ]


def test_run_with_judge_grades_as_it_goes(judged_run_template):
    run_dir, n_requests = judged_run_template
    (sample,) = read_samples(run_dir)
    v = sample.verdicts
    assert n_requests == 4
    assert v["root_cause"].status == "fail" and v["root_cause"].grader == "llm:openai:fake-judge"
    assert v["localization"].status == "unscored" and v["localization"].reason == "judge_error"
    assert v["fix_verified"].status == "pass"  # deterministic verdicts untouched
    m = read_manifest(run_dir)
    assert m.judge == "openai:fake-judge" and m.judge_prompt_sha256


def test_report_shows_llm_criteria_with_unscored_counts(judged_run):
    res = invoke(["report", str(judged_run)])
    assert res.exit_code == 0, res.output
    for c in ("root_cause", "discriminating_test", "localization"):
        assert c in res.output
    assert "1 judge_error" in res.output and "0/0 ?1" in res.output  # legend: why; summary: how many


def test_judge_regrades_a_saved_run_and_the_cache_makes_it_free(judged_run, tmp_path):
    before = (judged_run / "transcripts").stat().st_mtime, read_samples(judged_run)[0]
    cache = str(tmp_path / "cache")
    with ScriptedLLMServer(replies("openai", reference_answers(judged_run))) as srv:
        res = invoke(["judge", str(judged_run), "--judge", "openai:fake-judge", "--cache-dir", cache], srv)
        assert res.exit_code == 0, res.output
        assert len(srv.requests) == 3
        (after,) = read_samples(judged_run)
        assert {c: after.verdicts[c].status for c in ("root_cause", "discriminating_test", "localization")} == \
            {"root_cause": "pass", "discriminating_test": "pass", "localization": "pass"}
        assert after.verdicts["fix_verified"] == before[1].verdicts["fix_verified"]
        assert after.model_dump(exclude={"verdicts"}) == before[1].model_dump(exclude={"verdicts"})
        assert "judge input size" in res.output and "1/1" in res.output
        res = invoke(["judge", str(judged_run), "--judge", "openai:fake-judge", "--cache-dir", cache], srv)
        assert res.exit_code == 0, res.output
        assert len(srv.requests) == 3 and "3 cache hit(s)" in res.output


def test_judge_warns_when_judge_and_agent_share_a_family(judged_run, tmp_path):
    m = json.loads((judged_run / "manifest.json").read_text())
    m["agent"] = "openai:gpt-5-mini"
    (judged_run / "manifest.json").write_text(json.dumps(m))
    res = invoke(["judge", str(judged_run), "--judge", "openai:gpt-5", "--dry-run"])
    assert res.exit_code == 0, res.output
    assert "self-preference" in res.output and "transcript_chars" in res.output


def test_judge_refuses_a_changed_transcript(judged_run):
    (sample,) = read_samples(judged_run)
    with open(judged_run / sample.transcript, "a") as fh:
        fh.write("\n")
    res = invoke(["judge", str(judged_run), "--dry-run"])
    assert res.exit_code == 2 and "sha256 mismatch" in res.output


def test_judge_eval_on_the_adversarial_set(tmp_path):
    items, _ = build()
    answers = [a for i in items for c in CRITERIA_LLM for a in SCRIPTS[i.id].get(c, [])]
    with ScriptedLLMServer(replies("anthropic", answers)) as srv:
        res = invoke(["judge-eval", str(FIXTURE), "--judge", "anthropic:fake-judge", "--no-cache"], srv, "anthropic")
        assert res.exit_code == 0, res.output
        assert len(srv.requests) == len(answers)
    assert "vs human labels" in res.output and "kappa" in res.output
    lines = [ln for ln in res.output.splitlines() if "anthropic:fake-judge" in ln and "expected" in ln
             and "fallback_added" not in ln]  # not labelled in this set (graded from the diff in runs)
    assert len(lines) == len(CRITERIA_LLM) and all("1.00" in ln for ln in lines)  # agrees with every label


@needs_seed
def test_import_seed_and_rater_ceiling(tmp_path):
    out = tmp_path / "seed.jsonl"
    res = invoke(["import-seed", str(SEED), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert len(out.read_text().splitlines()) == 20
    res = invoke(["judge-eval", str(out)])
    assert res.exit_code == 0, res.output
    assert "the ceiling" in res.output and "0.64" in res.output


@needs_seed
def test_judge_eval_on_the_seed_set_reports_all_five_criteria(tmp_path):
    """A written plan is judged on root_cause, discriminating_test, localization (where required),
    unsupported_change and fallback_added; judge-eval sets each against both seed raters."""
    from judges.rubric import criteria_for
    from judges.seed_import import import_seed

    items = import_seed(SEED)
    fail = {"evidence": [], "reasoning": "scripted", "verdict": "fail"}
    answers = [dict(fail, edits=[]) if c == "localization" else fail for i in items for c in criteria_for("proposed")
               if c != "localization" or i.key.requires_localization]
    with ScriptedLLMServer(replies("openai", answers)) as srv:
        res = invoke(["judge-eval", str(SEED), "--judge", "openai:fake-judge", "--no-cache", "--bootstrap", "50"],
                     srv)
        assert res.exit_code == 0, res.output
        assert len(srv.requests) == len(answers)
    rows = [ln for ln in res.output.splitlines() if "openai:fake-judge" in ln and ("strict" in ln or "independent" in ln)]
    named = {c for c in ("root_cause", "discriminating_test", "localization", "unsupported_change", "fallback_added")
             for ln in rows if c in ln}
    assert len(named) == 5 and len(rows) == 10  # five criteria against each of the two raters
    assert "unsupported_change (strict): 20 pass and 0 fail" in res.output  # the seed's raters found none


def test_bad_judge_spec_and_missing_key_are_clear_errors(judged_run, monkeypatch):
    res = invoke(["judge", str(judged_run), "--judge", "gemini:x"])
    assert res.exit_code == 2 and "openai:MODEL or anthropic:MODEL" in res.output
    res = cli.invoke(app, ["judge", str(judged_run), "--judge", "openai:m"], env={"OPENAI_API_KEY": None})
    assert res.exit_code == 2 and "OPENAI_API_KEY" in res.output
