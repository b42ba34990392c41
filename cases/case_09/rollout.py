"""Rollout collection and n-step returns for the A2C trainer."""

from dataclasses import dataclass

import torch


@dataclass
class Rollout:
    obs: torch.Tensor          # (T, N, obs_dim) observation each step was taken from
    actions: torch.Tensor      # (T, N)
    rewards: torch.Tensor      # (T, N)
    terminated: torch.Tensor   # (T, N) bool, the task ended on this step
    truncated: torch.Tensor    # (T, N) bool, the time limit ended the episode on this step
    next_values: torch.Tensor  # (T, N) critic value of the state reached by this step
    returns: torch.Tensor      # (T, N)


def discounted_returns(rewards, terminated, truncated, next_values, gamma):
    """n-step returns inside the rollout.

    The tail after a step is the return of the next step in the rollout, except where that
    next step belongs to a new episode: after a time-limit cut (and after the last step of
    the rollout) the critic estimates the tail from the state reached; after termination
    there is no tail at all.
    """
    T = rewards.shape[0]
    returns = torch.zeros_like(rewards)
    tail = next_values[T - 1]
    for t in reversed(range(T)):
        if t < T - 1:
            tail = torch.where(truncated[t], next_values[t], returns[t + 1])
        returns[t] = rewards[t] + gamma * (1.0 - terminated[t].float()) * tail
    return returns


def collect(env, model, obs, n_steps, gamma):
    """Run `n_steps` steps in every copy of `env` starting from `obs`.

    Returns the rollout, the observation to continue from, and the returns of the episodes
    that finished during the rollout.
    """
    N = env.n_envs
    obs_buf = torch.zeros(n_steps, N, env.obs_dim)
    actions = torch.zeros(n_steps, N, dtype=torch.long)
    rewards = torch.zeros(n_steps, N)
    terminated = torch.zeros(n_steps, N, dtype=torch.bool)
    truncated = torch.zeros(n_steps, N, dtype=torch.bool)
    reached = torch.zeros(n_steps, N, env.obs_dim)
    finished = []
    for t in range(n_steps):
        obs_buf[t] = obs
        with torch.no_grad():
            logits, _ = model(obs)
        actions[t] = torch.multinomial(logits.softmax(-1), 1).squeeze(-1)
        obs, reward, term, trunc, info = env.step(actions[t])
        rewards[t] = reward
        terminated[t] = term
        truncated[t] = trunc
        reached[t] = info["final_obs"]
        if "episode_return" in info:
            finished += info["episode_return"].tolist()
    with torch.no_grad():
        next_values = model(reached)[1]
    returns = discounted_returns(rewards, terminated, truncated, next_values, gamma)
    return Rollout(obs_buf, actions, rewards, terminated, truncated, next_values, returns), obs, finished
