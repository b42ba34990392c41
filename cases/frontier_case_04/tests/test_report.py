from report import best_epoch, render
from tools.ascii_curve import curve


def _history():
    base = {"train_loss": 1.0, "loss": 1.1, "train_acc": 0.5, "acc_short": 0.4, "acc_medium": 0.5,
            "acc_long": 0.6, "acc_cohort_2024a": 0.7, "acc_cohort_2025b": 0.5}
    return [{**base, "epoch": 1, "step": 10, "acc": 0.5}, {**base, "epoch": 2, "step": 20, "acc": 0.6}]


def test_render_has_tables():
    text = render(_history(), "t")
    assert "| juveniles | 0.5000 |" in text
    assert "final val acc 0.6000" in text
    assert best_epoch(_history())["epoch"] == 2


def test_curve_lengths():
    rows = curve([0.1, 0.5, 0.9], width=10)
    assert rows[0].endswith("|") and rows[-1].endswith("#" * 10)
