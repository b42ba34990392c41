import pytest

from harness.core.cases import load_case
from harness.models import Location, MessageEvent, Report, ToolCallEvent
from judges.deterministic import answer_leak, fallback_added, location_match, parse_locations

KEY = [Location(file="model.py", start_line=17, end_line=19)]


def _loc(text):
    return location_match(Report(root_cause="x", location=text), KEY).status


def test_parse_locations_forms():
    assert parse_locations("model.py:19") == [("model.py", 19, 19)]
    assert parse_locations("src/model.py:12-18; train.py:52") == [("src/model.py", 12, 18), ("train.py", 52, 52)]
    assert parse_locations("model.py: 20 – 14") == [("model.py", 14, 20)]


def test_location_match_overlap_and_misses():
    assert _loc("model.py:19") == "pass"
    assert _loc("./model.py:15-17") == "pass"
    assert _loc("/tmp/ws/repo/model.py:18") == "pass"
    assert _loc("model.py:20") == "fail"
    assert _loc("train.py:19") == "fail"
    assert _loc("mymodel.py:19") == "fail"
    assert _loc("the forward pass") == "fail"
    assert location_match(None, KEY).status == "fail"


def test_fallback_added_flags_symptom_hiding():
    diff = "+++ b/prep.py\n+    z = (x - mu) / (std + 1e-8)\n+    z = torch.nan_to_num(z)\n"
    v = fallback_added(diff)
    assert v.status == "fail"
    assert {h["kind"] for h in v.details["hits"]} == {"eps_floor", "nan_replace"}


def test_fallback_added_ignores_removed_lines_and_non_python():
    diff = "+++ b/prep.py\n-    z = x.clamp(0, 1)\n+    z = x\n+++ b/README.md\n+use clamp( here\n"
    assert fallback_added(diff).status == "pass"


def test_answer_leak_detects_canary_and_answer_paths(project_root):
    case = load_case(project_root, "case_01")
    clean = [MessageEvent(id=0, t=0, role="assistant", content="looking at model.py")]
    assert answer_leak(clean, case).status == "pass"
    leaked = clean + [ToolCallEvent(id=1, t=0, call_id="c", name="bash",
                                    arguments={"command": f"cat {case.answer_dir}/key.toml"})]
    v = answer_leak(leaked, case)
    assert v.status == "fail" and v.details["hits"][0]["event_id"] == 1
    canary = [MessageEvent(id=0, t=0, role="assistant", content=f"found {case.key.canary}")]
    assert answer_leak(canary, case).details["hits"][0]["needle"] == "<canary>"


def test_location_match_bounds_spans():
    assert _loc("model.py:1-9999; train.py:1-9999") == "fail"
    v = location_match(Report(root_cause="x", location="model.py:1-9999"), KEY)
    assert "wider than 30 lines" in v.reason
    assert _loc("model.py:1-30") == "pass"  # 30 lines is allowed
    four = "a.py:1; b.py:2; c.py:3; model.py:18"
    v = location_match(Report(root_cause="x", location=four), KEY)
    assert v.status == "fail" and "at most 3" in v.reason
    assert _loc("a.py:1; b.py:2; model.py:18") == "pass"


def test_location_match_allows_links_between_layers_of_a_multi_span_key():
    """A two-layer key's honest report also names a link (a recorded blind solve's four spans, 39 lines)."""
    key = [Location(file="chatft/data/completion.py", start_line=12, end_line=16),
           Location(file="chatft/callbacks.py", start_line=29, end_line=37),
           Location(file="chatft/trainer.py", start_line=29, end_line=42)]
    sizes = {"chatft/data/completion.py": 60, "chatft/data/collate.py": 180, "chatft/accumulate.py": 90,
             "chatft/callbacks.py": 200, "chatft/trainer.py": 220}

    def verdict(text):
        return location_match(Report(root_cause="x", location=text), key, sizes)

    four = ("chatft/data/completion.py:13-19; chatft/callbacks.py:33-41; chatft/trainer.py:29-45; "
            "chatft/accumulate.py:31-36")
    assert verdict(four).status == "pass"
    v = verdict(four + "; chatft/data/collate.py:158-160")
    assert v.status == "fail" and "at most 4" in v.reason
    # the line budget grows by 10 per key span beyond the first (28 key lines: 30 + 20) and binds the link
    v = verdict("chatft/x.py:1-30; chatft/y.py:1-20; chatft/trainer.py:30")
    assert v.status == "fail" and "at most 50" in v.reason
    # a one-span key keeps 3 spans and 30 lines
    assert _loc("a.py:1-10; b.py:1-10; c.py:1-10; model.py:18") == "fail"


@pytest.mark.parametrize("command", [
    "cat /work/other/answers/case_01/key.toml",
    "cat '/work/other/./answers/../answers/case_03/gold.patch'",
    "ls //srv/copy//answers//case_02",
    "cat /x/an\\swers/case_01/measure.py",
    "head /x/ans*/case_01/*",
    "cat /x/a?swers/c*/k*",
    "ls ../../answers/",
    "grep -r canary /srv/clone/answers",
    "cat /y/shared/seeds/002_9fb1c92a9d12d0a6.txt",
    "python -c \"print(open('verifylib.py').read())\"",
    "cat /srv/clone/answers/hard_case_04/decide.py",
    "cat /srv/clone/answers/frontier_case_02/key.toml",
    "cat /srv/clone/answers/families/update_ratio.py",
])
def test_answer_leak_sees_paths_however_spelled(project_root, command):
    case = load_case(project_root, "case_01")
    ev = [ToolCallEvent(id=3, t=0, call_id="c", name="bash", arguments={"command": command})]
    assert answer_leak(ev, case).status == "fail", command


@pytest.mark.parametrize("command", ["cat data.py", "python train.py --answers=3", "echo 'my answers are below'",
                                     "ls cases/", "grep -n key model.py"])
def test_answer_leak_ignores_ordinary_commands(project_root, command):
    case = load_case(project_root, "case_01")
    ev = [ToolCallEvent(id=3, t=0, call_id="c", name="bash", arguments={"command": command})]
    assert answer_leak(ev, case).status == "pass", command


def test_answer_leak_flags_a_redacted_credential(project_root):
    case = load_case(project_root, "case_01")
    ev = [MessageEvent(id=0, t=0, role="assistant", content="found [REDACTED OPENAI_API_KEY] in /proc")]
    v = answer_leak(ev, case)
    assert v.status == "fail" and v.details["hits"][0]["needle"] == "[REDACTED OPENAI_API_KEY]"


def test_answer_leak_sees_the_key_printed_through_filters(project_root):
    """cd ans?ers; sed out the canary and file names: the key's prose in the output still gives it away."""
    from harness.models import ToolResultEvent

    case = load_case(project_root, "case_01")
    cmd = ToolCallEvent(id=3, t=0, call_id="c", name="bash",
                        arguments={"command": "cd /work/main; cd ans?ers; cd case_01; "
                                              "sed -e 's/MLDB[-A-Za-z0-9]*//g' k*"})
    assert answer_leak([cmd], case).status == "fail"  # the bare glob word
    quiet = ToolCallEvent(id=3, t=0, call_id="c", name="bash", arguments={"command": "python show.py"})
    out = ToolResultEvent(id=4, t=0, call_id="c", stdout="root_cause = " + case.key.root_cause.upper())
    v = answer_leak([quiet, out], case)
    assert v.status == "fail" and v.details["hits"][0]["needle"] == "<text of the answer key or verifier>"
    clean = ToolResultEvent(id=4, t=0, call_id="c", stdout="step 500 | loss 2.2905 | val acc 0.202 | entropy 2.302")
    assert answer_leak([quiet, clean], case).status == "pass"


def test_location_match_caps_spans_by_file_length(project_root):
    from judges.grading import case_file_lines

    case = load_case(project_root, "case_01")
    lines = case_file_lines(case)
    assert lines["model.py"] == 19
    whole = location_match(Report(root_cause="x", location="model.py:1-19"), case.key.locations, lines)
    assert whole.status == "fail" and "wider than 6 lines" in whole.reason
    assert location_match(Report(root_cause="x", location="model.py:17-19"), case.key.locations, lines).status == "pass"
    sneaky = location_match(Report(root_cause="x", location="a/../../model.py:18"), case.key.locations, lines)
    assert sneaky.status == "fail"


@pytest.mark.parametrize("command", ["ls */*",
                                     "python - <<'PY'\nimport glob\nprint(glob.glob('**/*.py', recursive=True))\nPY",
                                     "cat data/*.csv | head", "ls /tmp/*/repo/*", "find . -name '*.py'"])
def test_answer_leak_ignores_ordinary_globs(project_root, command):
    case = load_case(project_root, "case_05")
    ev = [ToolCallEvent(id=3, t=0, call_id="c", name="bash", arguments={"command": command})]
    assert answer_leak(ev, case).status == "pass", command


def test_location_match_counts_the_union_of_spans(project_root):
    """Three spans that each fit the limits but tile train.py together cover the whole file: not localizing."""
    from judges.grading import case_file_lines

    case = load_case(project_root, "case_01")
    lines = case_file_lines(case)
    assert lines["train.py"] == 78

    def verdict(text):
        return location_match(Report(root_cause="x", location=text), case.key.locations, lines)

    tiled = verdict("train.py:1-26; train.py:27-52; train.py:53-78")
    assert tiled.status == "fail" and "cover 78 lines" in tiled.reason
    # other spellings of the same file are the same file
    respelled = verdict("train.py:30-50; ./train.py:51-60; /tmp/ws/repo/train.py:61-70")
    assert respelled.status == "fail" and "train.py cover 41 lines" in respelled.reason
    # overlaps count once: the same 20 lines named three times is 20 lines
    assert verdict("train.py:40-59; train.py:45-55; train.py:50-59").status == "pass"
    # at most 40 lines in all, across files (30, and 10 for the key's second span)
    across = verdict("train.py:34-59; data.py:1-7; metrics.py:1-8")
    assert across.status == "fail" and "together cover 41 lines" in across.reason
    assert verdict("train.py:35-59; data.py:1-7; metrics.py:1-8").status == "pass"


def test_location_match_key_spans_are_the_floor_of_the_union():
    """A key wider in total than the limits still accepts a report naming exactly its spans."""
    key = [Location(file="a.py", start_line=1, end_line=20), Location(file="b.py", start_line=1, end_line=20)]
    lines = {"a.py": 90, "b.py": 90}
    exact = location_match(Report(root_cause="x", location="a.py:1-20; b.py:1-20"), key, lines)
    assert exact.status == "pass"
    # with one link's allowance (10 lines for the second key span): 50 lines in all
    wider = location_match(Report(root_cause="x", location="a.py:1-20; b.py:1-20; c.py:1-11"), key, lines)
    assert wider.status == "fail" and "together cover 51 lines" in wider.reason


def test_location_match_allows_the_signature_above_a_key_span(project_root):
    """A blind solver named the whole function (`monitor.py:13-24`, 12 lines) in a 33-line file whose key span is
    its body (14-24, 11 lines): a third of the file is 11, so only the key's span plus a little slack lets the
    signature in. Tiling the file is still not localizing."""
    from judges.grading import case_file_lines

    case = load_case(project_root, "case_05")
    lines = case_file_lines(case)

    def verdict(text):
        return location_match(Report(root_cause="x", location=text), case.key.locations, lines)

    assert verdict("monitor.py:13-24; train.py:67-72").status == "pass"
    n = lines["monitor.py"]
    third = n // 3 + 1
    assert verdict(f"monitor.py:1-{third}; monitor.py:{third + 1}-{2 * third}; monitor.py:{2 * third + 1}-{n}") \
        .status == "fail"
