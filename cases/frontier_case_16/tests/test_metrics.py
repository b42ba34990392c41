import torch

from metrics import confusion, format_report, summary


def test_confusion_and_summary():
    preds, labels = torch.tensor([0, 1, 1, 2]), torch.tensor([0, 1, 2, 2])
    cm = confusion(preds, labels, 3)
    assert cm.tolist() == [[1, 0, 0], [0, 1, 0], [0, 1, 1]]
    report = summary(cm, ["a", "b", "c"])
    assert report["accuracy"] == 0.75
    assert report["classes"]["c"]["recall"] == 0.5 and report["classes"]["b"]["precision"] == 0.5
    assert "macro-f1" in format_report(report)
