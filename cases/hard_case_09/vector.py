"""Vector environments: `n_envs` copies of a task stepped together.

Both backends have the same API as a single task, over tensors of `n_envs` entries:
``reset() -> (obs, info)`` and ``step(actions) -> (obs, reward, terminated, truncated, info)``.
Copies whose episode ended on a step restart at once (autoreset), so the returned `obs` is
already the first observation of the next episode for them; ``info["final_obs"]`` holds the
observation each copy actually reached on that step (what a learner bootstraps from), and
``info["episode_return"]`` / ``info["episode_length"]`` list the episodes that ended.

- `SyncVectorEnv` steps wrapped single copies (wrappers.wrap) and stacks fresh tensors.
- `BufferedVectorEnv` keeps the copies' outputs in preallocated tensors that every step
  rewrites (no allocation per step; noticeably faster with many copies). The tensors it returns
  are those buffers: a caller that keeps them past the next step must copy them.
"""

from __future__ import annotations

import torch

from envs import make_task
from wrappers import wrap


class SyncVectorEnv:
    def __init__(self, tasks, max_episode_steps: int, reward_scale: float = 1.0):
        self.envs = [wrap(task, max_episode_steps, reward_scale) for task in tasks]
        self.n_envs = len(tasks)
        self.obs_dim = tasks[0].obs_dim
        self.n_actions = tasks[0].n_actions
        self.max_episode_steps = max_episode_steps

    def reset(self):
        return torch.stack([env.reset()[0] for env in self.envs]), {}

    def step(self, actions):
        obs, rewards, terms, truncs, finals = [], [], [], [], []
        info = {"episode_return": [], "episode_length": []}
        for env, action in zip(self.envs, actions.tolist()):
            o, r, term, trunc, step_info = env.step(action)
            finals.append(o)
            if term or trunc:
                info["episode_return"].append(step_info["episode_return"])
                info["episode_length"].append(step_info["episode_length"])
                o, _ = env.reset()
            obs.append(o)
            rewards.append(r)
            terms.append(term)
            truncs.append(trunc)
        info["final_obs"] = torch.stack(finals)
        if not info["episode_return"]:
            del info["episode_return"], info["episode_length"]
        return (torch.stack(obs), torch.tensor(rewards, dtype=torch.float32),
                torch.tensor(terms, dtype=torch.bool), torch.tensor(truncs, dtype=torch.bool), info)


class BufferedVectorEnv:
    def __init__(self, tasks, max_episode_steps: int, reward_scale: float = 1.0):
        self.tasks = tasks
        self.n_envs = n = len(tasks)
        self.obs_dim = tasks[0].obs_dim
        self.n_actions = tasks[0].n_actions
        self.max_episode_steps = max_episode_steps
        self.reward_scale = reward_scale
        self.obs_buf = torch.zeros(n, self.obs_dim)
        self.final_obs_buf = torch.zeros(n, self.obs_dim)
        self.rew_buf = torch.zeros(n)
        self.term_buf = torch.zeros(n, dtype=torch.bool)
        self.elapsed = torch.zeros(n, dtype=torch.long)
        self.ep_return = torch.zeros(n)

    def reset_idx(self, ids):
        """Start a new episode in the copies `ids` (a 1-d index tensor)."""
        for i in ids.tolist():
            self.obs_buf[i] = self.tasks[i].reset()[0]
        self.elapsed[ids] = 0
        self.ep_return[ids] = 0.0
        self.term_buf[ids] = False

    def reset(self):
        self.reset_idx(torch.arange(self.n_envs))
        return self.obs_buf, {}

    def step(self, actions):
        for i, (task, action) in enumerate(zip(self.tasks, actions.tolist())):
            obs, reward, term, _, _ = task.step(action)
            self.obs_buf[i] = obs
            self.rew_buf[i] = reward
            self.term_buf[i] = term
        self.ep_return += self.rew_buf
        if self.reward_scale != 1.0:
            self.rew_buf.mul_(self.reward_scale)
        self.elapsed += 1
        terminated = self.term_buf
        truncated = self.elapsed >= self.max_episode_steps
        done = terminated | truncated
        self.final_obs_buf.copy_(self.obs_buf)
        info = {"final_obs": self.final_obs_buf}
        if done.any():
            ids = done.nonzero().flatten()
            info["episode_return"] = self.ep_return[ids].tolist()
            info["episode_length"] = self.elapsed[ids].tolist()
            self.reset_idx(ids)
        return self.obs_buf, self.rew_buf, terminated, truncated, info


BACKENDS = {"sync": SyncVectorEnv, "buffered": BufferedVectorEnv}


def make_vector_env(name: str, n_envs: int, max_episode_steps: int = 50, seed: int = 0,
                    backend: str = "sync", reward_scale: float = 1.0, **task_kwargs):
    """`n_envs` copies of task `name`, copy i seeded with seed * 1000 + i."""
    if backend not in BACKENDS:
        raise KeyError(f"unknown vector backend {backend!r} (known: {', '.join(BACKENDS)})")
    tasks = [make_task(name, seed=seed * 1000 + i, **task_kwargs) for i in range(n_envs)]
    return BACKENDS[backend](tasks, max_episode_steps, reward_scale)


def from_config(env_cfg, seed: int):
    return make_vector_env(env_cfg.name, env_cfg.n_envs, env_cfg.max_episode_steps, seed,
                           env_cfg.vector, env_cfg.reward_scale)
