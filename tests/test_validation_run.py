"""The background validation's bookkeeping (tests/validation_run.py), without running a case."""

from tests import validation_run


def test_the_summary_says_where_the_time_went_and_nothing_before_a_validation(monkeypatch):
    monkeypatch.setattr(validation_run, "_state", {})
    assert validation_run.summary() == []
    monkeypatch.setattr(validation_run, "_state", {
        "ids": ["case_01", "case_02"], "started": 0.0, "widened": 900.0, "ended": 2100.0,
        "durations": [("corpus_accept:a", 10.0), ("corpus_accept:b", 12.0), ("leak_scan", 0.0),
                      ("kernel[default]:verifier_passes_on_gold", 9.0)]})
    lines = validation_run.summary()
    assert lines[0].startswith("case validation: 2 cases, 4 checks, 31 s of check time; 900 s beside")
    assert "1,200 s on" in lines[0]
    assert any(line.split()[0] == "corpus_accept" and "22 s" in line for line in lines[1:])
    assert any(line.split()[0] == "kernel[default]:verifier_passes_on_gold" for line in lines[1:])


def test_stop_starts_nothing_more(monkeypatch):
    monkeypatch.setattr(validation_run, "_state", {"width": 1})
    validation_run.stop()
    assert validation_run._state["width"] == 0
