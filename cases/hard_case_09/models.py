"""Actor-critic networks. Each maps observations (..., obs_dim) to policy logits
(..., n_actions) and state values (...)."""

from __future__ import annotations

import torch
import torch.nn as nn

ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


def mlp(n_in: int, hidden: int, n_out: int, activation: str = "tanh") -> nn.Sequential:
    act = ACTIVATIONS[activation]
    return nn.Sequential(nn.Linear(n_in, hidden), act(), nn.Linear(hidden, hidden), act(), nn.Linear(hidden, n_out))


class SeparateActorCritic(nn.Module):
    """Two independent MLPs over the same observation: no gradient of one loss reaches the
    other head's parameters."""

    def __init__(self, obs_dim: int, n_actions: int, hidden: int = 32, activation: str = "tanh"):
        super().__init__()
        self.actor = mlp(obs_dim, hidden, n_actions, activation)
        self.critic = mlp(obs_dim, hidden, 1, activation)

    def forward(self, obs):
        return self.actor(obs), self.critic(obs).squeeze(-1)


class SharedActorCritic(nn.Module):
    """One trunk, two linear heads; the policy head starts near uniform (small init)."""

    def __init__(self, obs_dim: int, n_actions: int, hidden: int = 32, activation: str = "tanh"):
        super().__init__()
        act = ACTIVATIONS[activation]
        self.trunk = nn.Sequential(nn.Linear(obs_dim, hidden), act(), nn.Linear(hidden, hidden), act())
        self.policy_head = nn.Linear(hidden, n_actions)
        self.value_head = nn.Linear(hidden, 1)
        nn.init.normal_(self.policy_head.weight, std=0.01)
        nn.init.zeros_(self.policy_head.bias)

    def forward(self, obs):
        h = self.trunk(obs)
        return self.policy_head(h), self.value_head(h).squeeze(-1)


class TabularActorCritic(nn.Module):
    """A logit row and a value per one-hot state: the probes' sanity baseline (no function
    approximation, so any error left is the learner's, not the network's)."""

    def __init__(self, obs_dim: int, n_actions: int, hidden: int = 0, activation: str = "tanh"):
        super().__init__()
        self.logits = nn.Parameter(torch.zeros(obs_dim, n_actions))
        self.values = nn.Parameter(torch.zeros(obs_dim))

    def forward(self, obs):
        return obs @ self.logits, obs @ self.values


MODELS = {"separate": SeparateActorCritic, "shared": SharedActorCritic, "tabular": TabularActorCritic}


def build_model(model_cfg, obs_dim: int, n_actions: int) -> nn.Module:
    if model_cfg.kind not in MODELS:
        raise KeyError(f"unknown model kind {model_cfg.kind!r} (known: {', '.join(MODELS)})")
    if model_cfg.activation not in ACTIVATIONS:
        raise KeyError(f"unknown activation {model_cfg.activation!r} (known: {', '.join(ACTIVATIONS)})")
    return MODELS[model_cfg.kind](obs_dim, n_actions, model_cfg.hidden, model_cfg.activation)


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
