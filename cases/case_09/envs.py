"""Small batched environments with a gymnasium-style step API.

``step(actions)`` returns ``obs, reward, terminated, truncated, info``, each a tensor over
the ``n_envs`` copies:

- ``terminated``: the task itself ended (the goal was reached, nothing comes after);
- ``truncated``: the time limit cut the episode short (the task would have gone on).

Copies that finish are reset in place, so ``obs`` is already the first observation of the
next episode for them; ``info["final_obs"]`` holds the observation each copy actually
reached on this step. Buffers are preallocated.
"""

import torch
import torch.nn.functional as F


class BatchedEnv:
    obs_dim = 1
    n_actions = 1

    def __init__(self, n_envs, max_episode_steps=50, seed=0):
        self.n_envs = n_envs
        self.max_episode_steps = max_episode_steps
        self.gen = torch.Generator().manual_seed(seed)
        self.obs_buf = torch.zeros(n_envs, self.obs_dim)
        self.rew_buf = torch.zeros(n_envs)
        self.term_buf = torch.zeros(n_envs, dtype=torch.bool)
        self.elapsed = torch.zeros(n_envs, dtype=torch.long)
        self.ep_return = torch.zeros(n_envs)

    # task-specific parts -------------------------------------------------
    def reset_task(self, ids):
        raise NotImplementedError

    def step_task(self, actions):
        """Advance every copy; fill obs_buf, rew_buf and term_buf."""
        raise NotImplementedError

    # shared machinery -----------------------------------------------------
    def reset(self):
        self.reset_idx(torch.arange(self.n_envs))
        return self.obs_buf, {}

    def reset_idx(self, ids):
        self.elapsed[ids] = 0
        self.ep_return[ids] = 0.0
        self.term_buf[ids] = False
        self.reset_task(ids)

    def step(self, actions):
        self.step_task(actions)
        self.elapsed += 1
        self.ep_return += self.rew_buf
        truncated = self.elapsed >= self.max_episode_steps
        done = self.term_buf | truncated
        info = {"final_obs": self.obs_buf.clone()}
        if done.any():
            ids = done.nonzero().flatten()
            info["episode_return"] = self.ep_return[ids].clone()
            info["episode_length"] = self.elapsed[ids].clone()
            self.reset_idx(ids)
        return self.obs_buf, self.rew_buf, self.term_buf, truncated, info


class TwoStepProbe(BatchedEnv):
    """Probe env (A. Jones, "Debugging RL, without the agonizing pain"): one action,
    observation [1,0,0] then [0,1,0], reward +1 on the second step, then the episode ends
    (the terminal observation is [0,0,1]). The critic should learn V = gamma then V = 1."""

    obs_dim = 3
    n_actions = 1

    def __init__(self, n_envs, max_episode_steps=50, seed=0):
        self.clock = torch.zeros(n_envs, dtype=torch.long)
        super().__init__(n_envs, max_episode_steps, seed)

    def reset_task(self, ids):
        self.clock[ids] = 0
        self.obs_buf[ids] = F.one_hot(self.clock[ids], 3).float()

    def step_task(self, actions):
        self.clock += 1
        self.rew_buf[:] = (self.clock == 2).float()
        self.term_buf[:] = self.clock >= 2
        self.obs_buf[:] = F.one_hot(self.clock, 3).float()


class Corridor(BatchedEnv):
    """Walk left/right along a corridor of `length` cells from a random start; reaching the
    right end gives +1 and ends the episode. A small cost per step."""

    length = 7
    obs_dim = 7
    n_actions = 2
    step_cost = 0.01

    def __init__(self, n_envs, max_episode_steps=50, seed=0):
        self.pos = torch.zeros(n_envs, dtype=torch.long)
        super().__init__(n_envs, max_episode_steps, seed)

    def reset_task(self, ids):
        self.pos[ids] = torch.randint(0, self.length - 1, (len(ids),), generator=self.gen)
        self.obs_buf[ids] = F.one_hot(self.pos[ids], self.length).float()

    def step_task(self, actions):
        move = actions * 2 - 1
        self.pos = torch.where(self.pos + move < 0, self.pos, self.pos + move)
        at_goal = self.pos == self.length - 1
        self.rew_buf[:] = at_goal.float() - self.step_cost
        self.term_buf[:] = at_goal
        self.obs_buf[:] = F.one_hot(self.pos, self.length).float()


ENVS = {"probe": TwoStepProbe, "corridor": Corridor}


def make_env(name, n_envs, max_episode_steps=50, seed=0):
    return ENVS[name](n_envs, max_episode_steps, seed)
