"""Single-copy tasks with a gymnasium-style API.

``reset()`` returns ``(obs, info)``; ``step(action)`` returns
``(obs, reward, terminated, truncated, info)`` where

- ``terminated``: the task itself ended (a goal or a terminal state; nothing comes after);
- ``truncated``: the episode was cut short from outside (time limits live in vector.py
  and wrappers.py, so the tasks here never truncate).

Observations are one-hot float tensors over the task's states. The probe tasks follow Andy
Jones' "Debugging RL, without the agonizing pain": each isolates one part of the learner and
has values one can write down by hand.
"""

from __future__ import annotations

import torch


def one_hot(index: int, n: int) -> torch.Tensor:
    obs = torch.zeros(n)
    obs[index] = 1.0
    return obs


class Task:
    """One copy of a task. Subclasses set the sizes and implement `_start` and `_move`."""

    n_states = 1
    n_actions = 1

    def __init__(self, seed: int = 0):
        self.rng = torch.Generator().manual_seed(seed)
        self.state = 0

    @property
    def obs_dim(self) -> int:
        return self.n_states

    def observe(self) -> torch.Tensor:
        return one_hot(self.state, self.n_states)

    def _start(self) -> int:
        raise NotImplementedError

    def _move(self, action: int) -> tuple[int, float, bool]:
        """(next state, reward, terminated) from the current state."""
        raise NotImplementedError

    def reset(self):
        self.state = self._start()
        return self.observe(), {}

    def step(self, action: int):
        if not 0 <= int(action) < self.n_actions:
            raise ValueError(f"{type(self).__name__}: action {action} outside 0..{self.n_actions - 1}")
        self.state, reward, terminated = self._move(int(action))
        return self.observe(), float(reward), bool(terminated), False, {}

    def expected_values(self, gamma: float) -> list[float] | None:
        """V of each non-terminal state under any policy, when the task has one (probes)."""
        return None


class ConstantProbe(Task):
    """Probe 1: one state, one action, reward +1, then the episode ends. V = 1."""

    n_states = 2   # the start state and the terminal state
    n_actions = 1

    def _start(self):
        return 0

    def _move(self, action):
        return 1, 1.0, True

    def expected_values(self, gamma):
        return [1.0]


class TwoStepProbe(Task):
    """Probe 3: one action; observation A then B, reward +1 on the second step, then the episode
    ends (terminal observation C). V(A) = gamma, V(B) = 1."""

    n_states = 3
    n_actions = 1

    def _start(self):
        return 0

    def _move(self, action):
        nxt = self.state + 1
        return nxt, float(nxt == 2), nxt == 2

    def expected_values(self, gamma):
        return [gamma, 1.0]


class ChoiceProbe(Task):
    """Probe 4: one state, two actions; action 1 pays +1 and action 0 pays -1, then the episode
    ends. The policy should learn action 1; V then approaches 1."""

    n_states = 2
    n_actions = 2

    def _start(self):
        return 0

    def _move(self, action):
        return 1, 1.0 if action == 1 else -1.0, True


class Corridor(Task):
    """Walk left/right along `length` cells from a random start; reaching the right end pays +1
    and ends the episode; every step costs `step_cost`."""

    n_actions = 2

    def __init__(self, seed: int = 0, length: int = 7, step_cost: float = 0.01):
        super().__init__(seed)
        self.length = length
        self.step_cost = step_cost

    @property
    def n_states(self):
        return self.length

    def _start(self):
        return int(torch.randint(0, self.length - 1, (1,), generator=self.rng))

    def _move(self, action):
        nxt = self.state + (1 if action == 1 else -1)
        nxt = max(nxt, 0)
        at_goal = nxt == self.length - 1
        return nxt, float(at_goal) - self.step_cost, at_goal


TASKS = {"constant": ConstantProbe, "probe": TwoStepProbe, "choice": ChoiceProbe, "corridor": Corridor}


def make_task(name: str, seed: int = 0, **kwargs) -> Task:
    if name not in TASKS:
        raise KeyError(f"unknown task {name!r} (known: {', '.join(TASKS)})")
    return TASKS[name](seed=seed, **kwargs)
