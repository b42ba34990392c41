import torch

from metrics import confusion, summarize


def test_confusion_counts():
    cm = confusion(torch.tensor([0, 1, 1, 2]), torch.tensor([0, 1, 2, 2]), 3)
    assert cm.tolist() == [[1, 0, 0], [0, 1, 0], [0, 1, 1]]


def test_summary_macro_f1():
    s = summarize(torch.tensor([0, 0, 1, 1]), torch.tensor([0, 1, 1, 1]), ["a", "b"])
    assert abs(s["accuracy"] - 0.75) < 1e-9
    assert abs(s["per_queue"]["b"]["recall"] - 2 / 3) < 1e-9
    assert abs(s["per_queue"]["a"]["precision"] - 0.5) < 1e-9
    assert 0 < s["macro_f1"] < 1
