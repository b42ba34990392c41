import torch

from metrics import confusion, summarize


def test_confusion_counts():
    cm = confusion(torch.tensor([0, 1, 1, 2]), torch.tensor([0, 1, 2, 2]), 3)
    assert cm.tolist() == [[1, 0, 0], [0, 1, 0], [0, 1, 1]]


def test_summary_recall():
    logits = torch.tensor([[2.0, 0.0], [0.0, 2.0], [2.0, 0.0]])
    s = summarize(logits, torch.tensor([0, 1, 1]), 2)
    assert s["recall"] == [1.0, 0.5]
