import torch

from hub_runtime import LivePredictor
from models import BagOfEvents
from vocab import Vocab


def test_live_predictor_publishes_after_confirmation():
    torch.manual_seed(0)
    vocab = Vocab.build([["a", "b", "c"]])
    live = LivePredictor(BagOfEvents(len(vocab), 2), vocab, ["x", "y"], confirm=2)
    assert live.push(0, "a") is None
    assert live.push(1, "a") in ("x", "y")


def test_live_predictor_resets_after_a_gap():
    torch.manual_seed(0)
    vocab = Vocab.build([["a"]])
    live = LivePredictor(BagOfEvents(len(vocab), 2), vocab, ["x", "y"], gap_s=10, confirm=1)
    live.push(0, "a")
    live.push(1, "a")
    live.push(100, "a")
    assert len(live.events) == 1
