"""Running statistics of a training run."""

from __future__ import annotations

from collections import deque

import torch


class EpisodeTracker:
    """The last `window` finished episodes' returns and lengths."""

    def __init__(self, window: int = 100):
        self.returns = deque(maxlen=window)
        self.lengths = deque(maxlen=window)
        self.total_episodes = 0

    def add(self, returns, lengths):
        self.returns.extend(float(r) for r in returns)
        self.lengths.extend(int(n) for n in lengths)
        self.total_episodes += len(returns)

    @property
    def mean_return(self) -> float:
        return sum(self.returns) / len(self.returns) if self.returns else 0.0

    @property
    def mean_length(self) -> float:
        return sum(self.lengths) / len(self.lengths) if self.lengths else 0.0


def explained_variance(values: torch.Tensor, targets: torch.Tensor) -> float:
    """1 - Var(targets - values) / Var(targets); 1 is perfect, 0 no better than a constant."""
    var = targets.var()
    if var < 1e-12:
        return float("nan")
    return (1.0 - (targets - values).var() / var).item()


def episode_ends(rollout) -> dict:
    """How the rollout's episodes ended: counts of terminations and of time-limit cuts."""
    terminated = rollout.terminated
    truncated = rollout.truncated
    return {"terminations": int(terminated.sum()), "time_limit_cuts": int((truncated & ~terminated).sum())}

