"""Package a trained model for the on-watch classifier: weights, config and a TorchScript trace.

The watch classifies one recording at a time, so the trace takes a single recording.
"""

from pathlib import Path

import torch

from synth import CLASS_NAMES


def export(model, cfg, example, path):
    """Write ``path`` (state dict + config) and ``path`` with .ts (traced module); returns both paths."""
    model.eval()
    x = example[None]
    lengths = torch.tensor([len(example)])
    with torch.no_grad():
        traced = torch.jit.trace(model, (x, lengths), check_trace=False)
        eager, scripted = model(x, lengths), traced(x, lengths)
    if not torch.allclose(eager, scripted, atol=1e-5):
        raise RuntimeError("traced model disagrees with the eager model on the example recording")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    torch.save({"state_dict": model.state_dict(), "config": cfg.to_dict(), "classes": CLASS_NAMES}, path)
    ts_path = str(path) + ".ts"
    traced.save(ts_path)
    return path, ts_path
