"""Loading the project's pretrained ClimNet (an .npz of arrays: weights, input statistics, classes)."""

import numpy as np
import torch

from models.climnet import ClimNet


def load_pretrained(path, hidden=96, width=64, dropout=0.1, head_init_std=0.02):
    """The pretrained model with its own head and classes, and the input statistics it was trained on."""
    with np.load(path) as arrays:
        state = {k: torch.from_numpy(arrays[k]) for k in arrays.files if k.startswith(("backbone.", "head."))}
        classes = tuple(str(c) for c in arrays["classes"])
        mean, std = arrays["input_mean"], arrays["input_std"]
    state = {_rename(k): v for k, v in state.items()}
    n_inputs = state["backbone.net.0.weight"].shape[1]
    model = ClimNet(n_inputs, classes, hidden, width, dropout, head_init_std)
    model.load_state_dict(state)
    return model, (mean, std)


def _rename(key):
    # the 2025 export saved the Sequential's indices without the `net.` level
    prefix, _, rest = key.partition(".")
    if prefix == "backbone" and not rest.startswith("net."):
        return f"backbone.net.{rest}"
    return key
