import numpy as np
import torch

from calibration import alert_threshold, expected_calibration_error
from export import fingerprint, gateway_arrays, self_test
from dataset import Scaler
from models import HerdNet


def test_gateway_forward_matches_model():
    torch.manual_seed(0)
    model = HerdNet(20, ("normal", "heat", "lameness", "mastitis")).eval()
    scaler = Scaler(np.zeros(20), np.ones(20))
    arrays = gateway_arrays(model, scaler)
    agree, err = self_test(model, arrays, scaler)
    assert agree >= 0.98 and err < 1e-2


def test_fingerprint_changes_with_weights():
    a = {"w0": np.ones((2, 2), dtype=np.float32)}
    b = {"w0": np.full((2, 2), 2.0, dtype=np.float32)}
    assert fingerprint(a) != fingerprint(b)


def test_alert_threshold_keeps_recall():
    probs = torch.tensor([[0.9, 0.1], [0.2, 0.8], [0.4, 0.6], [0.7, 0.3]])
    targets = torch.tensor([0, 1, 1, 1])
    t = alert_threshold(probs, targets, 1, min_recall=0.6)
    assert (probs[targets == 1, 1] >= t).float().mean() >= 0.6


def test_ece_zero_when_confident_and_right():
    probs = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    assert expected_calibration_error(probs, torch.tensor([0, 1])) == 0.0
