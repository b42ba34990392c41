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

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.cleared_terminal_flags import (  # noqa: E402
    ENV_TRACES, GAMMA, PROBE_CRITIC, ROLLOUTS, TRACE_OPTIONS, as_tensor, record_trainings, reset_obs, stand_in_critic,
    step_trace)
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

PINNED = {"n_envs": 8, "n_steps": 8, "max_episode_steps": 50, "updates": 120, "gamma": GAMMA, "lr": 3e-3}
LR_CAP = 10  # distinct learning rates recorded per training


def env_trace(make_env, name, n_envs, max_steps, steps, p_right, seed, overrides=None):
    env = make_env(name, n_envs, max_steps, seed=seed)
    for attr, value in (overrides or {}).items():
        if not hasattr(env, attr):
            return None  # the agent's env has no such knob: the decider notes the trace as not run
        setattr(env, attr, value)
    return step_trace(env, n_envs, steps, p_right, seed)


def measure(seed, rec):
    import torch

    envs = import_workspace_module("envs")
    make_env = require(envs, "make_env")
    rollout = import_workspace_module("rollout")
    collect = require(rollout, "collect")
    train = import_workspace_module("train")
    Config, train_fn = require(train, "Config", "train")

    torch.manual_seed(seed)
    for key, spec in ENV_TRACES.items():
        trace = env_trace(make_env, *spec, seed, TRACE_OPTIONS.get(key))
        rec.put(f"env_{key}_ran", trace is not None)
        if trace is not None:
            rec.save(f"env_{key}", trace)

    returns = {}
    for key, (n_envs, n_steps, max_steps) in ROLLOUTS.items():
        env = make_env("probe", n_envs, max_steps, seed=seed)
        obs = reset_obs(env.reset())
        ro = collect(env, stand_in_critic(PROBE_CRITIC, env.n_actions, heads=True), obs, n_steps, GAMMA)[0]
        returns[key] = as_tensor(ro.returns, torch.float64)
    rec.save("rollout_returns", returns)

    def trainer_for(task):
        return lambda: train_fn(Config(seed=seed, env=task, **PINNED))

    record_trainings(rec, trainer_for, LR_CAP)


measure_main(measure)
