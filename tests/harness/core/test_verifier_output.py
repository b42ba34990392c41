"""How a decider's output becomes a verdict (harness.core.verifier_output), the one copy both the harness's
verification and the exported Harbor task's grader use: what a forged or broken output gets."""

from harness.core.verifier_output import first_failure, verdict_line, verdict_status

PASSED = {"passed": True, "seeds": {"0": True, "1": True}, "checks": [{"name": "loss", "seed": 0, "passed": True}]}
FAILED = {"passed": False, "seeds": {"0": False}, "checks": [{"name": "loss", "seed": 0, "passed": True},
                                                           {"name": "acc", "seed": 1, "passed": False, "value": 0.1}]}


def test_the_verdict_is_the_last_json_line_with_a_boolean_passed():
    out = '{"passed": true}\nnoise\n{"passed": "yes"}\n[1]\n{"passed": false, "checks": []}\n{not json\n'
    assert verdict_line(out) == {"passed": False, "checks": []}
    assert verdict_line("no verdict here\n") is None


def test_a_verdict_its_exit_code_contradicts_is_an_error():
    assert verdict_status(PASSED, 0, False) == ("pass", None)
    assert verdict_status(PASSED, 1, False)[0] == "error"
    assert verdict_status(FAILED, 0, False) == ("error", "the deciding process could not run (exit code 0, verdict "
                                                         "line passed=False)")
    assert verdict_status(None, 1, False) == ("error", "the deciding process could not run (exit code 1, no verdict "
                                                       "line)")
    assert verdict_status(PASSED, None, True) == ("error", "the deciding process could not run (timed out)")
    assert verdict_status(PASSED, 3, False)[0] == "error"


def test_a_pass_needs_checks_and_every_seed_and_no_partial_unless_asked():
    for forged in ({"passed": True}, {**PASSED, "checks": []}, {**PASSED, "seeds": {}},
                   {**PASSED, "seeds": {"0": True, "1": False}}, {**PASSED, "partial": {"seeds": 1}}):
        assert verdict_status(forged, 0, False)[0] == "error", forged
    assert verdict_status({**PASSED, "partial": {"seeds": 1}}, 0, False, partial_ok=True) == ("pass", None)


def test_a_fail_names_its_first_failing_check():
    assert verdict_status(FAILED, 1, False) == ("fail", "acc (seed 1): 0.1")
    assert first_failure({"checks": [{"name": "readme", "passed": False, "reason": "no loss line"}]}) == \
        "readme: no loss line"
    assert first_failure({"passed": False}) == "verifier checks failed"
    assert len(first_failure({"checks": [{"name": "x" * 900, "passed": False}]})) == 500
