"""Export a trained forecaster: weights, scalers, config and an evaluation report per building."""

import json
from pathlib import Path

import torch

from metrics import summarize


@torch.no_grad()
def evaluate_shards(model, pipeline, target_scaler, shards, batch_size=256):
    """Metrics per building over every row, in eval mode, batched as in training (one building per batch)."""
    was_training = model.training
    model.eval()
    report = {}
    for shard in shards:
        mus, vars_, ys = [], [], []
        for i in range(0, len(shard["x"]) - batch_size + 1, batch_size):
            raw, y = shard["x"][i:i + batch_size], shard["y"][i:i + batch_size]
            mu, var = model(pipeline(raw))
            mus.append(target_scaler.inverse(mu))
            vars_.append(target_scaler.inverse_var(var))
            ys.append(y)
        if mus:
            report[shard["name"]] = summarize(torch.cat(mus), torch.cat(vars_), torch.cat(ys))
    model.train(was_training)
    return report


def export_run(out_dir, model, cfg, normalizer, target_scaler, report, epochs):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), out / "model.pt")
    (out / "config.json").write_text(cfg.dumps())
    (out / "scalers.json").write_text(json.dumps({"inputs": normalizer.state(), "target": target_scaler.state()}))
    (out / "report.json").write_text(json.dumps({"per_building": report, "epochs": epochs}, indent=2))
    return out
