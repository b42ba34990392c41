"""Export a trained run: weights, tokenizer, config, a metrics report and a few sampled names."""

import json
from pathlib import Path

import torch
import torch.nn.functional as F

from metrics import calibration_error, evaluate


@torch.no_grad()
def sample_names(model, tokenizer, block_size, n, seed=0, temperature=1.0, max_len=20):
    """Ancestral sampling from the model, one character at a time until the boundary token."""
    was_training = model.training
    model.eval()
    g = torch.Generator().manual_seed(seed)
    names = []
    for _ in range(n):
        context, out = [0] * block_size, []
        for _ in range(max_len):
            logits = model(torch.tensor([context]))[0] / temperature
            ix = torch.multinomial(F.softmax(logits, dim=-1), 1, generator=g).item()
            if ix == 0:
                break
            out.append(ix)
            context = context[1:] + [ix]
        names.append(tokenizer.decode(out))
    model.train(was_training)
    return names


def export_run(out_dir, model, tokenizer, cfg, datasets, n_samples=0):
    """Write the run folder; returns the report dict."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    x_val, y_val = datasets["val"]
    report = {"val": evaluate(model, x_val, y_val), "val_ece": calibration_error(model, x_val, y_val),
              "train_words": datasets["n_words"][0], "val_words": datasets["n_words"][1]}
    if n_samples:
        report["samples"] = sample_names(model, tokenizer, cfg.data.block_size, n_samples, seed=cfg.train.seed)
    torch.save(model.state_dict(), out / "model.pt")
    tokenizer.save(out / "tokenizer.json")
    (out / "config.json").write_text(cfg.dumps())
    (out / "report.json").write_text(json.dumps(report, indent=2))
    return report
