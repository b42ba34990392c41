"""A2C on small batched envs. Usage: python train.py [--key=value ...] (see Config).

--env=probe is the two-step probe (expected V: gamma at the first observation, 1 at the
second); --env=corridor is the actual task.
"""

import sys
import time
from dataclasses import dataclass, fields

import torch
import torch.nn.functional as F
from torch.distributions import Categorical

from envs import make_env
from model import ActorCritic
from rollout import collect


@dataclass
class Config:
    seed: int = 0
    env: str = "probe"
    n_envs: int = 8
    n_steps: int = 8
    max_episode_steps: int = 50
    updates: int = 120
    gamma: float = 0.99
    lr: float = 3e-3
    hidden: int = 32
    vf_coef: float = 0.5
    ent_coef: float = 0.01
    log_every: int = 20


def parse_args(argv):
    cfg = Config()
    types = {f.name: f.type for f in fields(Config)}
    for arg in argv:
        key, _, value = arg.lstrip("-").partition("=")
        if key not in types:
            raise SystemExit(f"unknown option --{key}")
        kind = types[key]
        cast = str if kind in (str, "str") else int if kind in (int, "int") else float
        setattr(cfg, key, cast(value))
    return cfg


@torch.no_grad()
def probe_values(model, env):
    """Critic value at each non-terminal observation of the probe (one-hot states)."""
    states = torch.eye(env.obs_dim)[: env.obs_dim - 1]
    return model(states)[1].tolist()


def train(cfg):
    torch.manual_seed(cfg.seed)
    env = make_env(cfg.env, cfg.n_envs, cfg.max_episode_steps, seed=cfg.seed)
    model = ActorCritic(env.obs_dim, env.n_actions, cfg.hidden)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    obs, _ = env.reset()
    history = []
    recent = []
    for update in range(cfg.updates + 1):
        ro, obs, finished = collect(env, model, obs, cfg.n_steps, cfg.gamma)
        recent = (recent + finished)[-100:]
        logits, values = model(ro.obs.flatten(0, 1))
        returns = ro.returns.flatten()
        advantages = returns - values.detach()
        dist = Categorical(logits=logits)
        policy_loss = -(dist.log_prob(ro.actions.flatten()) * advantages).mean()
        value_loss = F.mse_loss(values, returns)
        entropy = dist.entropy().mean()
        loss = policy_loss + cfg.vf_coef * value_loss - cfg.ent_coef * entropy
        opt.zero_grad()
        loss.backward()
        opt.step()
        if update % cfg.log_every == 0:
            row = {"update": update, "ep_return": sum(recent) / max(len(recent), 1),
                   "value_loss": value_loss.item(), "mean_return_target": returns.mean().item(),
                   "mean_value": values.mean().item()}
            history.append(row)
            msg = (f"update {update:4d} | episode return {row['ep_return']:.3f} | value loss {row['value_loss']:.4f}"
                   f" | mean target {row['mean_return_target']:.3f} | mean V {row['mean_value']:.3f}")
            if cfg.env == "probe":
                msg += " | V(obs) " + " ".join(f"{v:.3f}" for v in probe_values(model, env))
            print(msg, flush=True)
    return model, history


def main(argv):
    torch.set_num_threads(1)
    cfg = parse_args(argv)
    t0 = time.time()
    train(cfg)
    print(f"done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])
