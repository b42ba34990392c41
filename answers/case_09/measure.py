"""case_09, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-c09-5e3a91c07b24d8f6

Calls the agent's code only through the entry points the task names (envs.make_env,
rollout.collect, train.Config, train.train) and records, per seed:

- env traces: the agent's env from make_env, stepped with actions drawn here (probe with
  max_episode_steps 50, 2 and 1; corridor, the README's actual task, with 50 and 5). Every
  value step() returns (obs, reward, terminated, truncated) is copied the moment it is
  returned (the env may hand out preallocated buffers), with the reset observation and the
  actions, so the decider can replay the task itself and derive the true flags; and once
  more on the corridor with its per-step cost set to -0.02 (every step pays), when the env
  has that attribute, so that a positive reward no longer marks the end of an episode;
- rollouts: the agent's collect() on the agent's probe env with a stand-in critic whose value
  is a known linear function of the observation, at four (n_steps, max_episode_steps) pairs;
  the decider computes the returns by hand;
- training at the README's settings (8 envs, 8-step rollouts, Adam 3e-3, 120 updates, gamma
  0.99, max_episode_steps 50) on the probe (`python train.py`) and on the corridor
  (`--env=corridor`): the trained model's state_dict and its values on the one-hot states,
  every optimizer step's class and learning rates, and what the probe training printed (the
  decider compares it with what `python train.py`, run by the harness as the user runs it,
  printed on seed 0); for the probe, also the critic's values with every parameter the
  optimizer trains put back to its value before the first step (then restored): values that
  come from training move with those parameters, hard-coded ones do not.
"""

import contextlib
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

GAMMA = 0.99
PINNED = {"n_envs": 8, "n_steps": 8, "max_episode_steps": 50, "updates": 120, "gamma": GAMMA, "lr": 3e-3}
# name: (env, n_envs, max_episode_steps, steps, probability of moving right)
ENV_TRACES = {
    "probe_t50": ("probe", 4, 50, 8, 0.0),
    "probe_t2": ("probe", 4, 2, 6, 0.0),
    "probe_t1": ("probe", 4, 1, 4, 0.0),
    "corridor_t50": ("corridor", 8, 50, 160, 0.7),
    "corridor_t5": ("corridor", 8, 5, 120, 0.7),
    # the corridor paying +0.02 per step (step_cost -0.02): positive rewards that end nothing
    "corridor_paid_steps": ("corridor", 8, 50, 120, 0.7),
}
OVERRIDES = {"corridor_paid_steps": {"step_cost": -0.02}}
# name: (n_envs, n_steps, max_episode_steps), all on the probe
ROLLOUTS = {"n6_t50": (3, 6, 50), "n5_t50": (3, 5, 50), "n4_t1": (3, 4, 1), "n4_t2": (3, 4, 2)}
PROBE_CRITIC = (0.3, 0.5, 0.7)  # stand-in critic: V(one-hot state i) = PROBE_CRITIC[i]


def _tensor(x, dtype):
    import torch

    return torch.as_tensor(x).detach().to(dtype).clone()


def env_trace(make_env, name, n_envs, max_steps, steps, p_right, seed, overrides=None):
    import torch

    env = make_env(name, n_envs, max_steps, seed=seed)
    for attr, value in (overrides or {}).items():
        if not hasattr(env, attr):
            return None  # the agent's env has no such knob: the decider notes the trace as not run
        setattr(env, attr, value)
    reset_out = env.reset()
    obs0 = reset_out[0] if isinstance(reset_out, tuple) else reset_out
    obs0 = _tensor(obs0, torch.float32)
    g = torch.Generator().manual_seed(1000 + seed)
    rows = {k: [] for k in ("actions", "obs", "reward", "terminated", "truncated")}
    for _ in range(steps):
        actions = (torch.rand(n_envs, generator=g) < p_right).long()
        obs, reward, term, trunc, _info = env.step(actions.clone())
        # copy now: the env may reuse these buffers on the next step
        rows["actions"].append(actions)
        rows["obs"].append(_tensor(obs, torch.float32))
        rows["reward"].append(_tensor(reward, torch.float32))
        rows["terminated"].append(_tensor(term, torch.bool))
        rows["truncated"].append(_tensor(trunc, torch.bool))
    out = {k: torch.stack(v) for k, v in rows.items()}
    out["obs0"] = obs0
    return out


def measure(seed, rec):
    import torch
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    envs = import_workspace_module("envs")
    make_env = require(envs, "make_env")
    rollout = import_workspace_module("rollout")
    collect = require(rollout, "collect")
    train = import_workspace_module("train")
    Config, train_fn = require(train, "Config", "train")

    torch.manual_seed(seed)
    for key, spec in ENV_TRACES.items():
        trace = env_trace(make_env, *spec, seed, OVERRIDES.get(key))
        rec.put(f"env_{key}_ran", trace is not None)
        if trace is not None:
            rec.save(f"env_{key}", trace)

    class StandInCritic(torch.nn.Module):
        """Zero policy logits; V(obs) = obs @ w, a known function of the state reached."""

        def __init__(self, w, n_actions):
            super().__init__()
            self.w = torch.tensor(w)
            self.n_actions = n_actions
            self.actor = lambda obs: torch.zeros(*obs.shape[:-1], n_actions)
            self.critic = lambda obs: (obs.float() @ self.w).unsqueeze(-1)

        def forward(self, obs):
            obs = torch.as_tensor(obs).float()
            return torch.zeros(*obs.shape[:-1], self.n_actions), obs @ self.w

    returns = {}
    for key, (n_envs, n_steps, max_steps) in ROLLOUTS.items():
        env = make_env("probe", n_envs, max_steps, seed=seed)
        reset_out = env.reset()
        obs = reset_out[0] if isinstance(reset_out, tuple) else reset_out
        ro = collect(env, StandInCritic(PROBE_CRITIC, env.n_actions), obs, n_steps, GAMMA)[0]
        returns[key] = _tensor(ro.returns, torch.float64)
    rec.save("rollout_returns", returns)

    steps, initial = [], []

    def on_step(opt, args, kwargs):
        steps.append((type(opt).__name__, [g["lr"] for g in opt.param_groups]))
        if not initial:  # the parameters as they were before the first step of this training
            initial.extend((p, p.detach().clone()) for g in opt.param_groups for p in g["params"])

    handle = register_optimizer_step_pre_hook(on_step)
    try:
        for env_name, n_states in (("probe", 3), ("corridor", 7)):
            steps.clear()
            initial.clear()
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                model, _ = train_fn(Config(seed=seed, env=env_name, **PINNED))
            if env_name == "probe":
                rec.put("probe_printed", printed.getvalue()[:20000])
            rec.put(f"{env_name}_optimizer_steps", len(steps))
            rec.put(f"{env_name}_optimizers", sorted({kind for kind, _ in steps}))
            rec.put(f"{env_name}_learning_rates", sorted({lr for _, lrs in steps for lr in lrs})[:10])
            rec.save(f"{env_name}_model", model.state_dict())
            with torch.no_grad():
                values = model(torch.eye(n_states))[1]
            rec.save(f"{env_name}_values", {"values": _tensor(values, torch.float64).reshape(-1)})
            if env_name == "probe":
                # the critic's values with every trained parameter back at its initial value (then restored)
                rec.put("probe_trained_parameters", len(initial))
                if initial:
                    trained = [(p, p.detach().clone()) for p, _ in initial]
                    with torch.no_grad():
                        for p, p0 in initial:
                            p.copy_(p0)
                        values0 = model(torch.eye(n_states))[1]
                        for p, p1 in trained:
                            p.copy_(p1)
                    rec.save("probe_values_at_init", {"values": _tensor(values0, torch.float64).reshape(-1)})
    finally:
        handle.remove()


measure_main(measure)
