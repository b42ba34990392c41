import torch

from calibration import TemperatureScaled, expected_calibration_error, fit_temperature
from metrics import macro_f1, top_confusions


def test_temperature_recovers_scale():
    torch.manual_seed(0)
    labels = torch.randint(0, 4, (2000,))
    clean = torch.randn(2000, 4)
    clean[torch.arange(2000), labels] += 2.0
    logits = clean * 3.0
    t = fit_temperature(logits, labels)
    assert t > 1.2
    ce = torch.nn.functional.cross_entropy
    assert ce(logits / t, labels) < ce(logits, labels)


def test_ece_of_perfect_confident_model_is_small():
    labels = torch.arange(4).repeat(50)
    logits = torch.full((200, 4), -20.0)
    logits[torch.arange(200), labels] = 20.0
    assert expected_calibration_error(logits, labels) < 1e-3


def test_wrapper_keeps_argmax():
    model = torch.nn.Linear(3, 5)
    wrapped = TemperatureScaled(model, 2.5)
    x = torch.randn(10, 3)
    assert torch.equal(model(x).argmax(1), wrapped(x).argmax(1))


def test_macro_f1_and_confusions():
    cm = [[8, 2], [0, 10]]
    assert abs(macro_f1(cm) - (2 * 0.8 / 1.8 + 2 * 10 / 12 * 1 / (10 / 12 + 1)) / 2) < 1e-9
    assert top_confusions(cm, ["a", "b"]) == [("a", "b", 2)]
