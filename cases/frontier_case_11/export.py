"""Evaluate and export a trained forecaster: weights, standardizer, config and a report per site."""

import json
from pathlib import Path

import torch

from metrics import summarize


@torch.no_grad()
def forecast(model, pipeline, site, batch_size=256):
    """The model's forecast for every row of `site`, in eval mode."""
    was_training = model.training
    model.eval()
    out = torch.cat([model(pipeline(site["x"][i:i + batch_size])) for i in range(0, len(site["y"]), batch_size)])
    model.train(was_training)
    return out


def evaluate_sites(model, pipeline, sites):
    """Metrics per site over every row given (the held-out week when called by train.run)."""
    return {site["name"]: summarize(forecast(model, pipeline, site), site["y"]) for site in sites}


def export_run(out_dir, model, cfg, standardizer, scale_kwh, report, epochs, updates):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), out / "model.pt")
    (out / "config.json").write_text(cfg.dumps())
    (out / "inputs.json").write_text(json.dumps({"standardizer": standardizer.state(), "scale_kwh": scale_kwh}))
    (out / "report.json").write_text(json.dumps({"per_site": report, "epochs": epochs, "updates": updates},
                                                indent=2))
    return out
