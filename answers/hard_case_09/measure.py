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

import contextlib
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

GAMMA = 0.99
LAMBDA = 0.95
BACKENDS = ("sync", "buffered")
PINNED = ["env.n_envs=8", "algo.n_steps=8", "env.max_episode_steps=50", "run.updates=120", "algo.gamma=0.99",
          "optim.lr=0.003", "env.vector=buffered", "run.log_every=20", "run.out_dir=", "run.metrics_file=",
          "run.eval_episodes=0"]
# name: (task, n_envs, max_episode_steps, steps, probability of moving right)
ENV_TRACES = {
    "probe_t50": ("probe", 4, 50, 8, 0.0),
    "probe_t2": ("probe", 4, 2, 6, 0.0),
    "probe_t1": ("probe", 4, 1, 4, 0.0),
    "corridor_t50": ("corridor", 8, 50, 160, 0.7),
    "corridor_t5": ("corridor", 8, 5, 120, 0.7),
    "corridor_paid_steps": ("corridor", 8, 50, 120, 0.7),
}
TASK_KWARGS = {"corridor_paid_steps": {"step_cost": -0.02}}
# name: (n_envs, n_steps, max_episode_steps), all on the buffered probe
ROLLOUTS = {"n6_t50": (3, 6, 50), "n5_t50": (3, 5, 50), "n4_t1": (3, 4, 1), "n4_t2": (3, 4, 2)}
PROBE_CRITIC = (0.3, 0.5, 0.7)  # stand-in critic: V(one-hot state i) = PROBE_CRITIC[i]


def _tensor(x, dtype):
    import torch

    return torch.as_tensor(x).detach().to(dtype).clone()


def _obs(reset_out):
    return reset_out[0] if isinstance(reset_out, tuple) else reset_out


def env_trace(make_vector_env, backend, task, n_envs, max_steps, steps, p_right, seed, task_kwargs):
    import torch

    try:
        env = make_vector_env(task, n_envs, max_steps, seed, backend=backend, **task_kwargs)
    except TypeError:
        if task_kwargs:
            return None  # the agent's make_vector_env takes no task options: the decider notes it
        raise
    obs0 = _tensor(_obs(env.reset()), torch.float32)
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

    make_vector_env = require(import_workspace_module("vector"), "make_vector_env")
    collect = require(import_workspace_module("rollout"), "collect")
    estimate = require(import_workspace_module("advantages"), "estimate")
    load_config = require(import_workspace_module("config"), "load_config")
    train_fn = require(import_workspace_module("train"), "train")

    torch.manual_seed(seed)
    for backend in BACKENDS:
        for key, spec in ENV_TRACES.items():
            trace = env_trace(make_vector_env, backend, *spec, seed, TASK_KWARGS.get(key, {}))
            rec.put(f"env_{backend}_{key}_ran", trace is not None)
            if trace is not None:
                rec.save(f"env_{backend}_{key}", trace)

    class StandInCritic(torch.nn.Module):
        """Zero policy logits; V(obs) = obs @ w, a known function of the state."""

        def __init__(self, w, n_actions):
            super().__init__()
            self.w = torch.tensor(w)
            self.n_actions = n_actions

        def forward(self, obs):
            obs = torch.as_tensor(obs).float()
            return torch.zeros(*obs.shape[:-1], self.n_actions), obs @ self.w

    returns = {}
    for estimator in ("nstep", "gae"):
        algo = load_config(None, [f"algo.estimator={estimator}", f"algo.gamma={GAMMA}", f"algo.gae_lambda={LAMBDA}",
                                  "algo.normalize_advantages=false"]).algo
        for key, (n_envs, n_steps, max_steps) in ROLLOUTS.items():
            env = make_vector_env("probe", n_envs, max_steps, seed, backend="buffered")
            critic = StandInCritic(PROBE_CRITIC, env.n_actions)
            obs = _obs(env.reset())
            ro = collect(env, critic, obs, n_steps)[0]
            with torch.no_grad():
                values = critic(ro.obs)[1]
                returns[f"{estimator}_{key}"] = _tensor(estimate(ro, values, algo)[1], torch.float64)
    rec.save("rollout_returns", returns)

    steps, initial = [], []

    def on_step(opt, args, kwargs):
        steps.append((type(opt).__name__, [g["lr"] for g in opt.param_groups]))
        if not initial:  # the parameters as they were before the first step of this training
            initial.extend((p, p.detach().clone()) for g in opt.param_groups for p in g["params"])

    handle = register_optimizer_step_pre_hook(on_step)
    try:
        for task, n_states in (("probe", 3), ("corridor", 7)):
            steps.clear()
            initial.clear()
            cfg = load_config(f"configs/{task}.toml", PINNED + [f"env.name={task}", f"run.seed={seed}"])
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                model, _ = train_fn(cfg)
            if task == "probe":
                rec.put("probe_printed", printed.getvalue()[:20000])
            rec.put(f"{task}_optimizer_steps", len(steps))
            rec.put(f"{task}_optimizers", sorted({kind for kind, _ in steps}))
            rec.put(f"{task}_learning_rates", sorted({lr for _, lrs in steps for lr in lrs})[:200])
            rec.save(f"{task}_model", model.state_dict())
            with torch.no_grad():
                values = model(torch.eye(n_states))[1]
            rec.save(f"{task}_values", {"values": _tensor(values, torch.float64).reshape(-1)})
            if task == "probe":
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
