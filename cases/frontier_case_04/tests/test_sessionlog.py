from sessionlog import Session, SessionLog


def _log():
    return SessionLog([Session("2026-03-03", "A", 2, "J02", False),
                       Session("2026-03-02", "A", 1, "J01", True),
                       Session("2026-03-05", "B", 1, "Y03", True)])


def test_order_and_summaries():
    log = _log()
    assert len(log) == 3
    assert [r.session for r in log.by_booth()["A"]] == [1, 2]
    assert log.span() == ("2026-03-02", "2026-03-05")
    assert log.per_booth() == {"A": 2, "B": 1}
    assert log.roster("2026-03-05") == [("B", "Y03")]
    assert abs(log.female_share() - 2 / 3) < 1e-12


def test_reads_the_export():
    log = SessionLog.read()
    assert len(log) > 0
    assert set(log.per_booth()) <= {"A", "B"}
