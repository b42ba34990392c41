import torch
import torch.nn as nn

from leafscan.engine.loops import evaluating
from leafscan.models.freezing import describe_freezing, freeze, is_frozen, set_training, unfreeze
from leafscan.models.mlp import LeafMLP


def batchnorms(module):
    return [m for m in module.modules() if isinstance(m, nn.BatchNorm1d)]


def test_evaluating_switches_to_inference_and_back():
    model = LeafMLP(48, 5).train()
    with evaluating(model):
        assert not model.training
        assert not any(bn.training for bn in batchnorms(model))
        assert not torch.is_grad_enabled()
    assert model.training and model.head.training
    assert all(bn.training for bn in batchnorms(model))


def test_evaluating_keeps_an_eval_model_in_eval():
    model = LeafMLP(48, 5).eval()
    with evaluating(model):
        pass
    assert not model.training


def test_frozen_encoder_keeps_its_statistics_through_validation():
    model = LeafMLP(48, 5).train()
    freeze(model.encoder)
    assert is_frozen(model.encoder) and not is_frozen(model)
    with evaluating(model):
        pass
    assert model.training and model.head.training
    assert not any(bn.training for bn in batchnorms(model.encoder))
    before = model.encoder[1].running_mean.clone()
    model(torch.randn(16, 48))
    assert torch.equal(model.encoder[1].running_mean, before)
    assert describe_freezing(model) == "frozen: encoder"


def test_unfreeze_trains_the_encoder_again():
    model = LeafMLP(48, 5)
    freeze(model.encoder)
    unfreeze(model.encoder)
    set_training(model, True)
    assert all(p.requires_grad for p in model.parameters())
    assert all(bn.training for bn in batchnorms(model))
    assert describe_freezing(model) == "frozen: none"
