"""Training-health monitors from the makemore lectures, as callbacks that add fields to a logged row.

- grad_norm:   per-matrix gradient norm and log10 grad:data ratio (std(grad) / std(weight));
- update_ratio: per-matrix log10 update:data ratio, the step relative to the weights
               (about -3 is the usual healthy value);
- saturation:  share of tanh outputs beyond +-0.97 in the last training forward.
"""

import torch
import torch.nn as nn

from callbacks import Callback


def weight_matrices(model):
    """(name, parameter) of every trainable 2-D parameter: the matrices the panels show."""
    return [(n, p) for n, p in model.named_parameters() if p.requires_grad and p.ndim == 2]


class GradNormMonitor(Callback):
    @torch.no_grad()
    def on_log(self, state, row):
        norms, ratios = {}, {}
        for name, p in weight_matrices(state.model):
            if p.grad is None:
                continue
            norms[name] = p.grad.norm().item()
            ratios[name] = (p.grad.std() / p.std()).log10().item()
        row["grad_norms"] = norms
        row["grad_data_ratio"] = ratios


class UpdateRatioMonitor(Callback):
    @torch.no_grad()
    def on_log(self, state, row):
        lr = row["lr"]
        ratios = {}
        for name, p in weight_matrices(state.model):
            if p.grad is not None:
                ratios[name] = ((lr * p.grad).std() / p.std()).log10().item()
        row["update_ratio"] = ratios


class SaturationMonitor(Callback):
    """Forward hooks on every Tanh; reports the saturated share of the latest forward."""

    def __init__(self, threshold=0.97):
        self.threshold, self.handles, self.latest = threshold, [], {}

    def on_train_begin(self, state):
        for name, module in state.model.named_modules():
            if isinstance(module, nn.Tanh):
                self.handles.append(module.register_forward_hook(self._hook(name)))

    def _hook(self, name):
        def hook(module, inputs, output):
            if module.training:
                self.latest[name] = (output.detach().abs() > self.threshold).float().mean().item()
        return hook

    def on_log(self, state, row):
        row["tanh_saturation"] = dict(self.latest)

    def on_train_end(self, state):
        for h in self.handles:
            h.remove()
        self.handles.clear()


MONITORS = {"grad_norm": GradNormMonitor, "update_ratio": UpdateRatioMonitor, "saturation": SaturationMonitor}


def build_monitors(names):
    unknown = [n for n in names if n not in MONITORS]
    if unknown:
        raise ValueError(f"unknown monitor(s) {unknown} (known: {', '.join(MONITORS)})")
    return [MONITORS[n]() for n in names]
