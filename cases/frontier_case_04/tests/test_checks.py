from checks import check_bouts
from exports import Bout


def test_flags_duplicates_and_short():
    b = Bout("A", 1, 1, "J01", ("a", "b"))
    problems = check_bouts([b, b])
    assert any("shorter" in p for p in problems)
    assert any("more than once" in p for p in problems)


def test_numbering_gap_and_alphabet():
    bouts = [Bout("A", 1, 1, "J01", ("a", "b", "c")), Bout("A", 1, 3, "J01", ("a", "z", "c"))]
    problems = check_bouts(bouts)
    assert any("gaps" in p for p in problems)
    assert any("'z'" in p for p in problems)


def test_register():
    from checks import check_register
    assert check_register([Bout("A", 1, 1, "Q09", ("a", "b", "c"))], {"Y01": "2024a"})
