"""Wrappers around a single task copy (same API as envs.Task).

- `TimeLimit` cuts an episode after `max_episode_steps` steps: the step is *truncated*, and
  *terminated* keeps whatever the task said (both can be true on the same step).
- `RewardScale` multiplies rewards by a constant (the raw return is kept in `info`).
- `EpisodeStatistics` adds the finished episode's return and length to `info` on the step the
  episode ends, counting raw rewards.
"""

from __future__ import annotations


class Wrapper:
    def __init__(self, env):
        self.env = env

    def __getattr__(self, name):
        # only reached for attributes the wrapper itself does not have
        return getattr(self.env, name)

    def reset(self):
        return self.env.reset()

    def step(self, action):
        return self.env.step(action)

    @property
    def unwrapped(self):
        return getattr(self.env, "unwrapped", self.env)


class TimeLimit(Wrapper):
    def __init__(self, env, max_episode_steps: int):
        super().__init__(env)
        self.max_episode_steps = max_episode_steps
        self.elapsed = 0

    def reset(self):
        self.elapsed = 0
        return self.env.reset()

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.elapsed += 1
        if self.elapsed >= self.max_episode_steps:
            truncated = True
        return obs, reward, terminated, truncated, info


class RewardScale(Wrapper):
    def __init__(self, env, scale: float):
        super().__init__(env)
        self.scale = scale

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        info = dict(info, raw_reward=reward)
        return obs, reward * self.scale, terminated, truncated, info


class EpisodeStatistics(Wrapper):
    def __init__(self, env):
        super().__init__(env)
        self.ep_return = 0.0
        self.ep_length = 0

    def reset(self):
        self.ep_return, self.ep_length = 0.0, 0
        return self.env.reset()

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.ep_return += info.get("raw_reward", reward)
        self.ep_length += 1
        if terminated or truncated:
            info = dict(info, episode_return=self.ep_return, episode_length=self.ep_length)
        return obs, reward, terminated, truncated, info


def wrap(task, max_episode_steps: int, reward_scale: float = 1.0):
    """The standard stack: time limit innermost, then reward scaling, then statistics."""
    env = TimeLimit(task, max_episode_steps)
    if reward_scale != 1.0:
        env = RewardScale(env, reward_scale)
    return EpisodeStatistics(env)
