from checks import check_bouts
from exports import Bout


def test_flags_duplicates_and_short():
    b = Bout("A", 1, 1, "J01", ("a", "b"))
    problems = check_bouts([b, b])
    assert any("shorter" in p for p in problems)
    assert any("more than once" in p for p in problems)
