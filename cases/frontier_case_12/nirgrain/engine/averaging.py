"""Exponential moving average of a model's weights (Polyak averaging).

The averaged copy is what the trainer validates, what the best checkpoint holds and what
export.py serves: late in training the raw weights move with every noisy step, the average
moves with their trend.
"""

import copy

import torch


def _state_tensors(module):
    """The module's state as (floating-point tensors, other tensors), in state_dict order."""
    floating, other = [], []
    for tensor in module.state_dict().values():
        (floating if tensor.is_floating_point() else other).append(tensor)
    return floating, other


class ExponentialAverage:
    """An averaged copy of ``model``: after each optimizer step, ``update()`` moves every
    floating-point tensor of the copy towards the model's, ``avg += (1 - decay) * (live - avg)``,
    and copies the integer ones (step counters).

    ``warmup`` ramps the decay up as ``min(decay, (1 + n) / (warmup + n))`` over the first
    updates, so the average does not hold on to the initial weights for thousands of steps.
    """

    def __init__(self, model, decay=0.999, warmup=0):
        if not 0.0 <= decay < 1.0:
            raise ValueError(f"decay must be in [0, 1), got {decay}")
        self.module = copy.deepcopy(model).eval()
        for p in self.module.parameters():
            p.requires_grad_(False)
        self.decay, self.warmup = decay, warmup
        self.num_updates = 0
        self._avg_float, self._avg_other = _state_tensors(self.module)
        self._live_float, self._live_other = _state_tensors(model)

    def current_decay(self):
        if self.warmup <= 0:
            return self.decay
        return min(self.decay, (1 + self.num_updates) / (self.warmup + self.num_updates))

    @torch.no_grad()
    def update(self):
        weight = 1.0 - self.current_decay()
        torch._foreach_lerp_(self._avg_float, self._live_float, weight)
        for avg, live in zip(self._avg_other, self._live_other):
            avg.copy_(live)
        self.num_updates += 1

    def state_dict(self):
        return self.module.state_dict()

    def __call__(self, x):
        return self.module(x)
