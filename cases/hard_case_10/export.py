"""Saving a trained field: weights, configuration, a CSV profile and a summary."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import torch

from metrics import evaluate, profile


def export_run(out_dir: str, trainer) -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(trainer.model.state_dict(), out / "model.pt")
    (out / "config.json").write_text(json.dumps(trainer.cfg.to_dict(), indent=2, default=list), encoding="utf-8")
    with (out / "profile.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["x", "u", "exact"])
        writer.writerows(profile(trainer.model, trainer.problem, 21))
    summary = {"problem": trainer.problem.summary(), "steps": trainer.step, **evaluate(trainer.model, trainer.problem)}
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return out


def load_run(out_dir: str):
    """(model, problem, config) of an exported run."""
    from config import Config, apply_table
    from models import build_model
    from problems import build_problem

    out = Path(out_dir)
    cfg = apply_table(Config(), json.loads((out / "config.json").read_text(encoding="utf-8")), str(out))
    problem = build_problem(cfg.problem)
    model = build_model(cfg.model, problem)
    model.load_state_dict(torch.load(out / "model.pt", weights_only=True))
    return model.eval(), problem, cfg
