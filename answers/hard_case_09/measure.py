"""hard_case_09, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-h09-8c41f27d905e3ab6

Calls the agent's code only through the entry points the task names (vector.make_vector_env,
rollout.collect, advantages.estimate, config.load_config, train.train) and records, per seed:

- env traces: the agent's vector env from make_vector_env, on BOTH backends ("sync", the
  default, and "buffered", which the README's configs select), stepped with actions drawn here
  (probe with max_episode_steps 50, 2 and 1; corridor with 50 and 5; the corridor once more with
  step_cost -0.02, so that every step pays and a positive reward marks no end). Every value
  step() returns (obs, reward, terminated, truncated) is copied the moment it is returned (the
  buffered backend hands out preallocated buffers), with the reset observation and the actions,
  so the decider can replay the task and derive the true flags;
- rollouts: the agent's collect() on the agent's buffered probe env with a stand-in critic whose
  value is a known linear function of the observation, then the agent's estimate() with the
  n-step and the GAE estimator (gamma 0.99, lambda 0.95, no advantage normalisation); the
  decider computes both by hand;
- training at the README's settings (configs/probe.toml, `python train.py --config
  configs/probe.toml`: 8 envs, 8-step rollouts, Adam 3e-3, 120 updates, gamma 0.99,
  max_episode_steps 50, buffered backend, pinned by overrides) and the same on
  configs/corridor.toml: the trained model's state_dict and its values on the one-hot states,
  every optimizer step's class and learning rates, what the probe training printed, and the
  probe critic's values with every trained parameter put back to its value before the first
  optimizer step (then restored).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.cleared_terminal_flags import (  # noqa: E402
    ENV_TRACES, GAMMA, PROBE_CRITIC, ROLLOUTS, TRACE_OPTIONS, as_tensor, record_trainings, reset_obs, stand_in_critic,
    step_trace)
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

LAMBDA = 0.95
BACKENDS = ("sync", "buffered")
PINNED = ["env.n_envs=8", "algo.n_steps=8", "env.max_episode_steps=50", "run.updates=120", "algo.gamma=0.99",
          "optim.lr=0.003", "env.vector=buffered", "run.log_every=20", "run.out_dir=", "run.metrics_file=",
          "run.eval_episodes=0"]
LR_CAP = 200  # distinct learning rates recorded per training (the config warms up)


def env_trace(make_vector_env, backend, task, n_envs, max_steps, steps, p_right, seed, task_kwargs):
    try:
        env = make_vector_env(task, n_envs, max_steps, seed, backend=backend, **task_kwargs)
    except TypeError:
        if task_kwargs:
            return None  # the agent's make_vector_env takes no task options: the decider notes it
        raise
    return step_trace(env, n_envs, steps, p_right, seed)


def measure(seed, rec):
    import torch

    make_vector_env = require(import_workspace_module("vector"), "make_vector_env")
    collect = require(import_workspace_module("rollout"), "collect")
    estimate = require(import_workspace_module("advantages"), "estimate")
    load_config = require(import_workspace_module("config"), "load_config")
    train_fn = require(import_workspace_module("train"), "train")

    torch.manual_seed(seed)
    for backend in BACKENDS:
        for key, spec in ENV_TRACES.items():
            trace = env_trace(make_vector_env, backend, *spec, seed, TRACE_OPTIONS.get(key, {}))
            rec.put(f"env_{backend}_{key}_ran", trace is not None)
            if trace is not None:
                rec.save(f"env_{backend}_{key}", trace)

    returns = {}
    for estimator in ("nstep", "gae"):
        algo = load_config(None, [f"algo.estimator={estimator}", f"algo.gamma={GAMMA}", f"algo.gae_lambda={LAMBDA}",
                                  "algo.normalize_advantages=false"]).algo
        for key, (n_envs, n_steps, max_steps) in ROLLOUTS.items():
            env = make_vector_env("probe", n_envs, max_steps, seed, backend="buffered")
            critic = stand_in_critic(PROBE_CRITIC, env.n_actions)
            obs = reset_obs(env.reset())
            ro = collect(env, critic, obs, n_steps)[0]
            with torch.no_grad():
                values = critic(ro.obs)[1]
                returns[f"{estimator}_{key}"] = as_tensor(estimate(ro, values, algo)[1], torch.float64)
    rec.save("rollout_returns", returns)

    def trainer_for(task):
        cfg = load_config(f"configs/{task}.toml", PINNED + [f"env.name={task}", f"run.seed={seed}"])
        return lambda: train_fn(cfg)

    record_trainings(rec, trainer_for, LR_CAP)


measure_main(measure)
