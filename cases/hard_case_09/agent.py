"""The A2C objective: policy gradient + value regression - entropy bonus."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch.distributions import Categorical

from advantages import estimate


@dataclass
class LossParts:
    total: torch.Tensor
    policy: float
    value: float
    entropy: float
    mean_target: float
    mean_value: float
    mean_advantage: float


def a2c_loss(model, rollout, algo_cfg) -> LossParts:
    logits, values = model(rollout.obs)
    with torch.no_grad():
        advantages, returns = estimate(rollout, values.detach(), algo_cfg)
    dist = Categorical(logits=logits)
    policy_loss = -(dist.log_prob(rollout.actions) * advantages).mean()
    value_loss = F.mse_loss(values, returns)
    entropy = dist.entropy().mean()
    total = policy_loss + algo_cfg.vf_coef * value_loss - algo_cfg.ent_coef * entropy
    return LossParts(total=total, policy=policy_loss.item(), value=value_loss.item(), entropy=entropy.item(),
                     mean_target=returns.mean().item(), mean_value=values.mean().item(),
                     mean_advantage=advantages.mean().item())


def policy_ratio_drift(model, rollout) -> float:
    """Mean |log pi_new(a|s) - log pi_old(a|s)| over the rollout, after an update: how far the
    policy moved in one step (a check that the learning rate is sane)."""
    with torch.no_grad():
        logits, _ = model(rollout.obs)
        new = torch.log_softmax(logits, -1).gather(-1, rollout.actions[..., None]).squeeze(-1)
    return (new - rollout.log_probs).abs().mean().item()


def grad_norm(parameters) -> float:
    norms = [p.grad.detach().norm() for p in parameters if p.grad is not None]
    return torch.stack(norms).norm().item() if norms else 0.0
