"""validate --margins: each numeric check's distance from its bound, as a fraction of the gold-broken gap."""

from harness.validation.checks import Check
from harness.validation.margins import case_margins, margin, table


def _check(name, rows, not_numeric=0):
    return Check(case_id="c", name=name, passed=True,
                 measured={"rows": [{"name": n, "seed": s, "value": v, "limit": lim, "sense": sense}
                                    for n, s, v, lim, sense in rows], "not_numeric": not_numeric})


def test_margin_is_the_passing_side_distance_over_the_gap():
    assert margin(0.2, 1.0, "<", 2.0) == 0.4
    assert margin(1.5, 1.0, "<", 2.0) == -0.25
    assert margin(0.9, 0.5, ">", 0.8) == 0.5
    assert margin(0.9, 0.5, ">", 0.0) is None


def test_values_near_the_bound_are_flagged_and_far_ones_not():
    checks = [
        _check("verifier_passes_on_gold", [("loss", 0, 0.50, 1.0, "<"), ("loss", 1, 0.60, 1.0, "<"),
                                           ("acc", 0, 0.95, 0.5, ">")], not_numeric=2),
        _check("verifier_fails_on_broken", [("loss", 0, 2.5, 1.0, "<"), ("acc", 0, 0.10, 0.5, ">")]),
        _check("corpus_accept:alt", [("loss", 0, 0.97, 1.0, "<")]),      # 0.03 from the bound, gap ~1.95
        _check("corpus_reject:wrong", [("acc", 0, 0.30, 0.5, ">")], not_numeric=1),
        _check("kernel[default]:verifier_passes_on_gold", [("loss", 0, 0.999, 1.0, "<")]),  # not a margin source
    ]
    m = case_margins("c", checks)
    rows = {r.check: r for r in m.rows}
    assert rows["loss"].flagged and rows["loss"].worst_corpus == 0.97 and rows["loss"].worst_corpus_fix == "corpus_accept:alt"
    assert abs(rows["loss"].margin - 0.03 / 1.95) < 1e-9
    assert rows["loss"].gold == 0.60 and rows["loss"].broken == 2.5
    assert not rows["acc"].flagged and abs(rows["acc"].margin - 0.2 / 0.85) < 1e-9
    assert m.not_numeric == 3
    printed = {r["check"]: r for r in table(m)}
    assert printed["loss"]["flag"] == "WITHIN 10%" and printed["acc"]["flag"] == ""


def test_a_check_without_a_broken_value_has_no_margin():
    m = case_margins("c", [_check("verifier_passes_on_gold", [("x", 0, 0.5, 1.0, "<")])])
    assert m.rows[0].margin is None and not m.rows[0].flagged
    assert table(m)[0]["margin"].startswith("n/a")


def test_a_flag_the_key_explains_is_shown_as_justified_and_a_note_never_hides_a_flag():
    checks = [_check("verifier_passes_on_gold", [("loss", 0, 0.50, 1.0, "<"), ("acc", 0, 0.95, 0.5, ">")]),
              _check("verifier_fails_on_broken", [("loss", 0, 2.5, 1.0, "<"), ("acc", 0, 0.10, 0.5, ">")]),
              _check("corpus_reject:wrong", [("loss", 0, 1.02, 1.0, "<")])]
    notes = {"loss": "wrong is rejected by acc at 0.1 on every seed and kernel; this check only reports it",
             "acc": "not flagged, so this note changes nothing"}
    rows = {r.check: r for r in case_margins("c", checks, notes).rows}
    assert rows["loss"].flagged and rows["loss"].justified.startswith("wrong is rejected")
    assert not rows["acc"].flagged
    printed = {r["check"]: r["flag"] for r in table(case_margins("c", checks, notes))}
    assert printed == {"loss": "WITHIN 10%, justified in the key", "acc": ""}
    assert {r["check"]: r["flag"] for r in table(case_margins("c", checks))}["loss"] == "WITHIN 10%"


def test_validate_margins_prints_which_flags_the_key_leaves_open(capsys):
    from harness.cli import cases as cli
    from harness.core.cases import find_root, load_cases

    case = load_cases(find_root(), ["case_01"])[0]
    case.key.margin_notes.clear()
    results = {"case_01": [_check("verifier_passes_on_gold", [("loss", 0, 0.50, 1.0, "<")]),
                           _check("verifier_fails_on_broken", [("loss", 0, 2.5, 1.0, "<")]),
                           _check("corpus_accept:alt", [("loss", 0, 0.99, 1.0, "<")])]}
    cli._print_margins(results, [case])
    assert "1 flagged, 1 neither fixed nor justified in the key (loss)" in capsys.readouterr().err


def test_a_bug_that_drives_the_value_to_infinity_gives_no_margin():
    assert margin(45.5, 0.001, "<", float("inf")) is None and margin(float("nan"), 1.0, "<", 2.0) is None
    checks = [_check("verifier_passes_on_gold", [("finite", 0, 0.0, 0.001, "<")]),
              _check("verifier_fails_on_broken", [("finite", 0, float("inf"), 0.001, "<")]),
              _check("corpus_reject:wrong", [("finite", 0, 45.5, 0.001, "<")])]
    (row,) = case_margins("c", checks).rows
    assert row.margin is None and not row.flagged
