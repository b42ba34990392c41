"""Return and advantage estimators over a rollout of shape (T, N).

Conventions shared by every estimator:

- ``terminated[t]``: the episode ended at step t and nothing follows: the return of step t is
  its reward alone;
- ``truncated[t]``: the episode was cut at step t (time limit): the return still has a tail,
  estimated by the critic at the state reached, ``next_values[t]``;
- the last step of the rollout bootstraps from ``next_values[T - 1]`` the same way, unless it
  terminated.
"""

from __future__ import annotations

import torch


def nstep_returns(rewards, terminated, truncated, next_values, gamma):
    """Discounted returns inside the rollout, bootstrapped where the rollout stops seeing the episode."""
    T = rewards.shape[0]
    returns = torch.zeros_like(rewards)
    tail = next_values[T - 1]
    for t in reversed(range(T)):
        if t < T - 1:
            tail = torch.where(truncated[t], next_values[t], returns[t + 1])
        returns[t] = rewards[t] + gamma * (1.0 - terminated[t].float()) * tail
    return returns


def gae(rewards, terminated, truncated, values, next_values, gamma, lam):
    """Generalised advantage estimation (Schulman et al. 2016); returns (advantages, returns).

    A time-limit cut keeps the one-step bootstrap of its own delta but does not let the
    advantages of the next episode flow back into it.
    """
    T = rewards.shape[0]
    advantages = torch.zeros_like(rewards)
    running = torch.zeros_like(rewards[0])
    for t in reversed(range(T)):
        alive = 1.0 - terminated[t].float()
        delta = rewards[t] + gamma * alive * next_values[t] - values[t]
        carry = torch.zeros_like(running) if t == T - 1 else running
        carry = torch.where(terminated[t] | truncated[t], torch.zeros_like(carry), carry)
        running = delta + gamma * lam * carry
        advantages[t] = running
    return advantages, advantages + values


def normalize(advantages, eps: float = 1e-8):
    """Zero mean, unit std (left centred only when the std is ~0, e.g. one action)."""
    centred = advantages - advantages.mean()
    std = centred.std() if centred.numel() > 1 else centred.new_tensor(0.0)
    return centred / std if std > eps else centred


def estimate(rollout, values, algo_cfg):
    """(advantages, returns) for a rollout; `values` are the critic's values of rollout.obs."""
    if algo_cfg.estimator == "nstep":
        returns = nstep_returns(rollout.rewards, rollout.terminated, rollout.truncated, rollout.next_values,
                                algo_cfg.gamma)
        advantages = returns - values
    elif algo_cfg.estimator == "gae":
        advantages, returns = gae(rollout.rewards, rollout.terminated, rollout.truncated, values, rollout.next_values,
                                  algo_cfg.gamma, algo_cfg.gae_lambda)
    else:
        raise KeyError(f"unknown estimator {algo_cfg.estimator!r} (known: {', '.join(ESTIMATORS)})")
    if algo_cfg.normalize_advantages:
        advantages = normalize(advantages)
    return advantages, returns


ESTIMATORS = ("nstep", "gae")
