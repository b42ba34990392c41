"""Rollout collection: `n_steps` steps in every copy of a vector env."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class Rollout:
    obs: torch.Tensor          # (T, N, obs_dim) observation each step was taken from
    actions: torch.Tensor      # (T, N)
    log_probs: torch.Tensor    # (T, N) of the actions, under the policy that chose them
    rewards: torch.Tensor      # (T, N)
    terminated: torch.Tensor   # (T, N) bool, the task ended on this step
    truncated: torch.Tensor    # (T, N) bool, the time limit ended the episode on this step
    next_values: torch.Tensor  # (T, N) critic value of the state each step reached
    finished_returns: list = field(default_factory=list)   # episodes that ended during the rollout
    finished_lengths: list = field(default_factory=list)


def sample_actions(logits: torch.Tensor, generator=None) -> tuple[torch.Tensor, torch.Tensor]:
    """Actions drawn from softmax(logits) and their log-probabilities."""
    log_p = torch.log_softmax(logits, dim=-1)
    actions = torch.multinomial(log_p.exp(), 1, generator=generator).squeeze(-1)
    return actions, log_p.gather(-1, actions[:, None]).squeeze(-1)


def collect(env, model, obs, n_steps: int):
    """Run `n_steps` steps in every copy of `env`, starting from `obs`.

    Returns the rollout and the observation to continue from. Everything the env returns is
    copied into the rollout's own storage as soon as it arrives.
    """
    N, D = env.n_envs, env.obs_dim
    ro = Rollout(obs=torch.zeros(n_steps, N, D), actions=torch.zeros(n_steps, N, dtype=torch.long),
                 log_probs=torch.zeros(n_steps, N), rewards=torch.zeros(n_steps, N),
                 terminated=torch.zeros(n_steps, N, dtype=torch.bool), truncated=torch.zeros(n_steps, N, dtype=torch.bool),
                 next_values=torch.zeros(n_steps, N))
    reached = torch.zeros(n_steps, N, D)
    for t in range(n_steps):
        ro.obs[t] = obs
        with torch.no_grad():
            logits, _ = model(ro.obs[t])
        ro.actions[t], ro.log_probs[t] = sample_actions(logits)
        obs, reward, terminated, truncated, info = env.step(ro.actions[t])
        ro.rewards[t] = reward
        ro.terminated[t] = terminated
        ro.truncated[t] = truncated
        reached[t] = info["final_obs"]
        ro.finished_returns += list(info.get("episode_return", []))
        ro.finished_lengths += list(info.get("episode_length", []))
    with torch.no_grad():
        ro.next_values = model(reached)[1]
    return ro, obs.clone()
