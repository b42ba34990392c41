from pumpwatch.report import compare_table, format_confusion, per_class_table


def test_per_class_table():
    cm = [[8, 2], [1, 9]]
    rows = per_class_table(cm, ["a", "b"])
    assert rows[0][1] == 10 and abs(rows[0][3] - 0.8) < 1e-9 and abs(rows[1][2] - 2 / 11) > 0


def test_confusion_and_compare_render():
    assert "normal" in format_confusion([[1, 0], [0, 1]], ["normal", "cavitation"])
    lines = compare_table({"x": [{"epoch": 1, "val_f1": 0.5}]}, ("val_f1",))
    assert lines[1].strip().startswith("1")
