"""Evaluation of a trained policy on fresh copies of the task (no learning)."""

from __future__ import annotations

import torch

from vector import make_vector_env


@torch.no_grad()
def evaluate(model, env_cfg, episodes: int, seed: int = 10_000, greedy: bool = True) -> dict:
    """Runs until `episodes` episodes have finished; mean/min return and mean length."""
    env = make_vector_env(env_cfg.name, min(env_cfg.n_envs, episodes), env_cfg.max_episode_steps, seed,
                          backend="sync")
    obs, _ = env.reset()
    returns, lengths = [], []
    gen = torch.Generator().manual_seed(seed)
    while len(returns) < episodes:
        logits, _ = model(obs)
        if greedy:
            actions = logits.argmax(-1)
        else:
            actions = torch.multinomial(logits.softmax(-1), 1, generator=gen).squeeze(-1)
        obs, _, _, _, info = env.step(actions)
        returns += info.get("episode_return", [])
        lengths += info.get("episode_length", [])
    returns, lengths = returns[:episodes], lengths[:episodes]
    return {"episodes": episodes, "mean_return": sum(returns) / episodes, "min_return": min(returns),
            "mean_length": sum(lengths) / episodes}


def format_eval(result: dict) -> str:
    return (f"eval over {result['episodes']} episodes | mean return {result['mean_return']:.3f}"
            f" | min return {result['min_return']:.3f} | mean length {result['mean_length']:.1f}")
