"""Saving a trained run: weights, configuration and a summary, and loading them back."""

from __future__ import annotations

import json
from pathlib import Path

import torch


def export_run(out_dir: str, trainer) -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(trainer.model.state_dict(), out / "model.pt")
    (out / "config.json").write_text(json.dumps(trainer.cfg.to_dict(), indent=2), encoding="utf-8")
    summary = {"updates": trainer.update, "episodes": trainer.episodes.total_episodes,
               "mean_return": trainer.episodes.mean_return, "mean_length": trainer.episodes.mean_length,
               "model": type(trainer.model).__name__,
               "parameters": sum(p.numel() for p in trainer.model.parameters()),
               "values": value_table(trainer.model, trainer.env.obs_dim)}
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return out


def load_run(out_dir: str):
    """(model, config) from an exported run."""
    from config import Config, apply_table
    from models import build_model
    from vector import make_vector_env

    out = Path(out_dir)
    raw = json.loads((out / "config.json").read_text(encoding="utf-8"))
    cfg = apply_table(Config(), raw, str(out / "config.json"))
    env = make_vector_env(cfg.env.name, 1, cfg.env.max_episode_steps)
    model = build_model(cfg.model, env.obs_dim, env.n_actions)
    model.load_state_dict(torch.load(out / "model.pt", weights_only=True))
    return model.eval(), cfg


@torch.no_grad()
def value_table(model, obs_dim: int) -> list[float]:
    """The critic's value of every one-hot state (for tabular-sized tasks)."""
    return model(torch.eye(obs_dim))[1].tolist()
