"""Loading the project's pretrained WheelNet (an .npz of arrays: weights, input statistics, classes)."""

import numpy as np
import torch

from models.wheelnet import WheelNet


def load_pretrained(path, hidden=96, width=64, dropout=0.1, init_std=0.02):
    """The pretrained model with its own head and classes, and the input statistics it was trained on."""
    with np.load(path) as arrays:
        state = {k: torch.from_numpy(arrays[k]) for k in arrays.files if k.startswith(("backbone.", "head."))}
        classes = tuple(str(c) for c in arrays["classes"])
        mean, std = arrays["input_mean"], arrays["input_std"]
    n_inputs = 2 * state["backbone.embed.w_read"].shape[1]
    model = WheelNet(n_inputs, classes, hidden, width, dropout, init_std)
    model.load_state_dict(state)
    return model, (mean, std)

