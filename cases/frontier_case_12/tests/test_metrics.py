import torch

from nirgrain.metrics import accuracy, confusion_matrix, expected_calibration_error, macro_f1, per_group_accuracy


def test_perfect_predictions():
    y = torch.tensor([0, 1, 2, 3, 1])
    logits = torch.nn.functional.one_hot(y, 4).float() * 20
    assert accuracy(logits, y) == 1.0
    assert macro_f1(logits, y, 4) == 1.0
    assert expected_calibration_error(logits, y) < 1e-6


def test_confusion_matrix_counts():
    y = torch.tensor([0, 0, 1, 1])
    logits = torch.tensor([[1.0, 0], [0, 1], [0, 1], [0, 1]])
    assert confusion_matrix(logits, y, 2).tolist() == [[1, 1], [0, 2]]


def test_per_group_accuracy():
    y = torch.tensor([0, 1, 0, 1])
    logits = torch.tensor([[1.0, 0], [1, 0], [1, 0], [0, 1]])
    assert per_group_accuracy(logits, y, torch.tensor([0, 0, 1, 1])) == {0: 0.5, 1: 1.0}
