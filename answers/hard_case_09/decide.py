"""hard_case_09, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-h09-8c41f27d905e3ab6

The bug: BufferedVectorEnv.step (vector.py, the backend configs/probe.toml and
configs/corridor.toml select) returns `terminated = self.term_buf`, the preallocated buffer,
and reset_idx, called in the same step for the copies that just finished, clears it; every
`terminated` flag the learner stores is False, n-step returns (and GAE) run on across true
terminals into the next episode, and the critic climbs far past anything the task pays (V ~ 14
after 120 updates on the probe and the corridor). The sync backend is right. The invariant is
the flag itself, and the returns built from it: stop at a termination, bootstrap from the state
reached at a time-limit cut. Checks per seed:

- recomputed `env_step_flags[<backend>:<trace>]`: the agent's vector env, on both backends
  ("sync" and "buffered"), stepped with recorded actions, is replayed here with this file's own
  copy of the task rules (state from the one-hot observation; probe: A -> B -> terminal, +1 on
  the second step; corridor: move left/right, the right end pays 1 - step_cost and ends the
  episode, -step_cost otherwise). Rewards and next observations must follow those rules and
  every `terminated` / `truncated` flag step() returned must equal the true one, on the probe at
  max_episode_steps 50, 2 (termination and time limit on one step) and 1 (every step a cut), on
  the corridor at 50 and 5, and on the corridor paying +0.02 per step (when make_vector_env
  still takes step_cost; a flag derived from the reward's sign fails there). The bug returns
  no terminated flag at all on the buffered backend; a fix that drops or breaks that backend
  fails here too;
- recomputed `rollout_returns[<estimator>, n_steps, max_episode_steps]`: the returns of the
  agent's collect() + estimate() on its buffered probe env with a stand-in critic
  V = (0.3, 0.5, 0.7) by state equal the returns computed here, for the n-step estimator
  ([gamma, 1, ...] for whole episodes, gamma * V(B) at the rollout's end and at time-limit
  cuts, 1 at a termination that coincides with the time limit) and for GAE (lambda 0.95)
  (bug: 2.91/2.94 ...; masking on terminated-or-truncated: 0 at the cuts);
- recomputed `probe_critic_values`: the critic trained at the README's settings
  (configs/probe.toml), loaded into this file's own copy of the separate actor-critic, reads
  V(A) = 0.99 +- 0.02 and V(B) = 1.00 +- 0.02 (bug: ~14);
- recomputed `corridor_critic_values`: the critic trained on configs/corridor.toml at the same
  settings reads below 1.05 in every non-goal state (fixed: ~0.9-0.99; bug: ~15);
  (both critic checks fall back to the values the measuring process reported, marked
  `reported`, only when the state_dict does not fit this file's copy of the model);
- reported `probe_critic_comes_from_training`: the probe critic's values with every trained
  parameter back at its value before the first step are far from the answer (> 0.1): a critic
  whose values are hard-coded, or do not depend on what the optimizer trains, fails;
- reported `trainer_ran_readme_settings`: each training made 120-121 Adam steps, peaking at lr
  3e-3 and never above it (the config's warmup below it is allowed, in either scheduler order).

And once, on what `python train.py --config configs/probe.toml` (the README's command, run by
the harness on a fresh copy of the agent's files as the user runs it; seed 0) printed:

- `readme_run_completes` (verifylib, every case): exit code 0, not timed out;
- `readme_run_values_within_payout`: at every logged update (0, 20, ..., 120) the mean return
  target is below 1.05 (every fix prints 0.995; bug: 2.65 at update 0, 15.6 at 120), and the
  last V(obs) reads 0.99 / 1.00 +- 0.02 (bug: 14.2 / 14.3);
- `readme_run_critic_is_the_trained_critic`: the printed last V(obs) equal the values of the
  seed-0 probe critic the measuring process trained at the same settings, within 1.5e-3;
- `readme_run_matches_verifier_run`: every logged line (lr, episode return, value loss, mean
  target, mean V, V(obs)) equals what the agent's train() printed for the probe on seed 0
  under the measuring process, within 2e-3. Code that behaves differently under the verifier
  (python -I, its argv, its hooks) moves them.
"""

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import Unreadable, decide_main, numbers  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

GAMMA = 0.99
LAMBDA = 0.95
BACKENDS = ("sync", "buffered")
ENV_TRACES = {  # name: (env, n_envs, max_episode_steps, steps) -- as the measuring half runs them
    "probe_t50": ("probe", 4, 50, 8),
    "probe_t2": ("probe", 4, 2, 6),
    "probe_t1": ("probe", 4, 1, 4),
    "corridor_t50": ("corridor", 8, 50, 160),
    "corridor_t5": ("corridor", 8, 5, 120),
    "corridor_paid_steps": ("corridor", 8, 50, 120),
}
STEP_COST = {"corridor_paid_steps": -0.02}  # the corridor's step_cost in that trace (shipped: 0.01)
ESTIMATORS = ("nstep", "gae")
ROLLOUTS = {"n6_t50": (3, 6, 50), "n5_t50": (3, 5, 50), "n4_t1": (3, 4, 1), "n4_t2": (3, 4, 2)}
PROBE_CRITIC = (0.3, 0.5, 0.7)
RETURN_TOL = 1e-5
PROBE_TOL = 0.02
CORRIDOR_BOUND = 1.05
REWARD_TOL = 1e-6
README_SEED = 0
README_UPDATES = list(range(0, 121, 20))   # the updates the README run logs (log_every 20)
PEAK_LR = 3e-3
PAYOUT_BOUND = 1.05                         # no probe return exceeds 1.0
INIT_FAR = 0.1                              # an untrained critic's distance from (gamma, 1)
PRINT_TOL = 1.5e-3                          # a value printed to 3 decimals against a recomputed one
LINE_TOL = 2e-3                             # the same line printed by two runs of one computation


class Task:
    """The shipped tasks' rules, reproduced here: states are the one-hot observation's index."""

    def __init__(self, name, step_cost=0.01):
        self.name, self.step_cost = name, step_cost
        self.n_states = 3 if name == "probe" else 7

    def is_start(self, s):
        return s == 0 if self.name == "probe" else 0 <= s <= 5

    def step(self, s, a):
        """(state reached, reward, terminated)"""
        if self.name == "probe":
            s2 = s + 1
            return s2, float(s2 == 2), s2 == 2
        s2 = s if s + (2 * a - 1) < 0 else s + (2 * a - 1)
        return s2, float(s2 == 6) - self.step_cost, s2 == 6


def one_hot_states(obs, n):
    """Index of each one-hot row, or -1 where a row is not one-hot over n states."""
    if obs.shape[-1] != n:
        raise Unreadable(f"observations have {obs.shape[-1]} features, expected {n}")
    ok = ((obs == 0) | (obs == 1)).all(-1) & (obs.sum(-1) == 1)
    return torch.where(ok, obs.argmax(-1), torch.full(obs.shape[:-1], -1))


def check_env_trace(backend, key, trace, checks):
    name, n_envs, max_steps, steps = ENV_TRACES[key]
    task = Task(name, STEP_COST.get(key, 0.01))
    shapes = {"obs0": (n_envs, task.n_states), "actions": (steps, n_envs), "obs": (steps, n_envs, task.n_states),
              "reward": (steps, n_envs), "terminated": (steps, n_envs), "truncated": (steps, n_envs)}
    for k, shape in shapes.items():
        if tuple(trace[k].shape) != shape:
            raise Unreadable(f"env trace {key}: {k} has shape {tuple(trace[k].shape)}, expected {shape}")
    state = one_hot_states(trace["obs0"].double(), task.n_states).tolist()
    next_states = one_hot_states(trace["obs"].double(), task.n_states).tolist()
    actions, rewards = trace["actions"].tolist(), trace["reward"].double().tolist()
    term, trunc = trace["terminated"].bool().tolist(), trace["truncated"].bool().tolist()
    elapsed = [0] * n_envs
    bad_dynamics, bad_term, bad_trunc, n_term, n_trunc, n_both = 0, 0, 0, 0, 0, 0
    bad_dynamics += sum(not task.is_start(s) for s in state)
    for t in range(steps):
        for i in range(n_envs):
            s2, r, te = task.step(state[i], actions[t][i])
            elapsed[i] += 1
            tr = elapsed[i] >= max_steps
            n_term, n_trunc, n_both = n_term + te, n_trunc + tr, n_both + (te and tr)
            bad_term += term[t][i] != te
            bad_trunc += trunc[t][i] != tr
            if abs(rewards[t][i] - r) > REWARD_TOL:
                bad_dynamics += 1
            nxt = next_states[t][i]
            if te or tr:
                elapsed[i] = 0
                bad_dynamics += not task.is_start(nxt)
            else:
                bad_dynamics += nxt != s2
            state[i] = nxt
    value = {"wrong_terminated": bad_term, "wrong_truncated": bad_trunc, "dynamics_mismatches": bad_dynamics,
             "true_terminations": n_term, "true_time_limit_cuts": n_trunc, "both_on_one_step": n_both,
             "terminated_returned": int(trace["terminated"].sum())}
    checks.check(f"env_step_flags[{backend}:{key}]", bad_term == 0 and bad_trunc == 0 and bad_dynamics == 0 and n_term + n_trunc > 0,
                 value=value, bound="every returned terminated/truncated flag equals the task's, "
                                    "the task's rules hold, at least one episode end: the bug returns a buffer "
                                    "reset_idx has already cleared, so no terminated flag survives")


def probe_hand_returns(estimator, n_steps, max_steps, gamma=GAMMA, lam=LAMBDA, w=PROBE_CRITIC):
    """Returns of the probe from a fresh reset, computed from the task's rules (n-step or GAE)."""
    clock = elapsed = 0
    rows = []
    for _ in range(n_steps):
        v_obs = w[clock]
        clock, elapsed = clock + 1, elapsed + 1
        term, trunc = clock >= 2, elapsed >= max_steps
        rows.append((float(clock == 2), term, trunc, v_obs, w[clock]))
        if term or trunc:
            clock = elapsed = 0
    out = [0.0] * n_steps
    if estimator == "gae":
        running = 0.0
        for t in reversed(range(n_steps)):
            r, term, trunc, v_obs, v_reached = rows[t]
            delta = r + (0.0 if term else gamma * v_reached) - v_obs
            carry = 0.0 if (t == n_steps - 1 or term or trunc) else running
            running = delta + gamma * lam * carry
            out[t] = running + v_obs
        return out
    for t in reversed(range(n_steps)):
        r, term, trunc, _v_obs, v_reached = rows[t]
        if term:
            out[t] = r
        elif trunc or t == n_steps - 1:
            out[t] = r + gamma * v_reached
        else:
            out[t] = r + gamma * out[t + 1]
    return out


def actor_critic(obs_dim, n_actions, hidden=32):
    """The case's SeparateActorCritic (models.py, the README configs' model), reproduced here."""
    def mlp(n_in, n_out):
        return nn.Sequential(nn.Linear(n_in, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                             nn.Linear(hidden, n_out))
    model = nn.Module()
    model.actor = mlp(obs_dim, n_actions)
    model.critic = mlp(obs_dim, 1)
    return model


def critic_values(m, env_name, obs_dim, n_actions):
    """(values of the trained critic on the one-hot states, source)."""
    model = actor_critic(obs_dim, n_actions)
    try:
        state = m.tensors(f"{env_name}_model", keys=model.state_dict().keys())
        model.load_state_dict(state)
        with torch.no_grad():
            return model.critic(torch.eye(obs_dim, dtype=state["critic.0.weight"].dtype)).reshape(-1).double(), \
                "recomputed"
    except (Unreadable, RuntimeError):
        values = m.tensors(f"{env_name}_values", keys=["values"])["values"].double().reshape(-1)
        if values.numel() != obs_dim:
            raise Unreadable(f"{env_name} values have {values.numel()} entries, expected {obs_dim}")
        return values, "reported"


def decide(seed, m, checks):
    for backend in BACKENDS:
        for key in ENV_TRACES:
            if key in STEP_COST and m.value(f"env_{backend}_{key}_ran", bool) is False:
                checks.check(f"env_step_flags[{backend}:{key}]", True,
                             value="not run: make_vector_env takes no step_cost", bound="optional trace")
                continue
            trace = m.tensors(f"env_{backend}_{key}", keys=["obs0", "actions", "obs", "reward", "terminated", "truncated"])
            check_env_trace(backend, key, trace, checks)

    returns = m.tensors("rollout_returns", keys=[f"{e}_{k}" for e in ESTIMATORS for k in ROLLOUTS])
    for estimator in ESTIMATORS:
        for key, (n_envs, n_steps, max_steps) in ROLLOUTS.items():
            check_rollout(estimator, returns[f"{estimator}_{key}"].double(), n_envs, n_steps, max_steps, checks)

    for env_name in ("probe", "corridor"):
        n, kinds, lrs = (m.number(f"{env_name}_optimizer_steps"), m.value(f"{env_name}_optimizers", list),
                         m.value(f"{env_name}_learning_rates", list))
        ok = (120 <= n <= 121 and kinds == ["Adam"] and bool(lrs) and all(isinstance(x, (int, float)) for x in lrs)
              and abs(max(lrs) - PEAK_LR) < 1e-12)
        checks.check(f"trainer_ran_readme_settings[{env_name}]", ok,
                     value={"steps": n, "optimizers": kinds, "max_lr": max(lrs) if lrs else None, "n_lrs": len(lrs)},
                     bound=f"120-121 Adam steps, peak lr {PEAK_LR}: the README's settings", source="reported")
    critic_checks(m, checks)


def check_rollout(estimator, got, n_envs, n_steps, max_steps, checks):
    name = f"rollout_returns[{estimator},n_steps={n_steps},max_episode_steps={max_steps}]"
    hand = torch.tensor(probe_hand_returns(estimator, n_steps, max_steps), dtype=torch.float64)
    if tuple(got.shape) != (n_steps, n_envs):
        checks.check(name, False, value=f"shape {tuple(got.shape)}", bound=f"shape {(n_steps, n_envs)}")
        return
    err = (got - hand[:, None]).abs().max().item()
    err = err if err == err else float("inf")
    checks.check(name, err < RETURN_TOL, value=round(err, 6) if math.isfinite(err) else "inf",
                 bound=f"< {RETURN_TOL}: max |returns - the task's ({[round(h, 4) for h in hand.tolist()]})|, got "
                       f"{[round(v, 4) for v in got[:, 0].tolist()]} in env 0; returns must stop at a termination and "
                       "bootstrap at a time-limit cut", limit=RETURN_TOL if math.isfinite(err) else None,
                 sense="<" if math.isfinite(err) else None)


def critic_checks(m, checks):
    v, source = critic_values(m, "probe", 3, 1)
    dev = max(abs(v[0].item() - GAMMA), abs(v[1].item() - 1.0))
    dev = dev if dev == dev else float("inf")
    checks.check("probe_critic_values", dev < PROBE_TOL, value=round(dev, 4) if math.isfinite(dev) else "nan",
                 bound=f"< {PROBE_TOL}: max(|V(A) - {GAMMA}|, |V(B) - 1|) of the trained probe critic (V = "
                       f"{[round(x, 4) for x in v[:2].tolist()]}); returns that run on across terminals make it climb "
                       "to ~14", source=source, limit=PROBE_TOL if math.isfinite(dev) else None,
                 sense="<" if math.isfinite(dev) else None)

    n_params = m.number("probe_trained_parameters")
    if n_params > 0:
        v0 = m.tensors("probe_values_at_init", keys=["values"])["values"].double().reshape(-1)
        if v0.numel() != 3:
            raise Unreadable(f"probe values at init have {v0.numel()} entries, expected 3")
        far = max(abs(v0[0].item() - GAMMA), abs(v0[1].item() - 1.0))
        far = far if far == far else 0.0  # NaN: not a critic that training moved
        value = {"V_at_initial_parameters": [round(x, 4) for x in v0[:2].tolist()], "trained_parameters": n_params}
    else:
        far, value = 0.0, {"trained_parameters": n_params}
    checks.check("probe_critic_comes_from_training", far > INIT_FAR, value=round(far, 4),
                 bound=f"> {INIT_FAR}: max(|V(A) - {GAMMA}|, |V(B) - 1|) with the trained parameters at their initial "
                       f"values ({value}); a critic whose values do not come from training sits at the answer",
                 source="reported", limit=INIT_FAR, sense=">")

    v, source = critic_values(m, "corridor", 7, 2)
    top = v[:6].max().item()
    top = top if top == top else float("inf")
    checks.check("corridor_critic_values", top < CORRIDOR_BOUND,
                 value=round(top, 4) if math.isfinite(top) else "nan",
                 bound=f"< {CORRIDOR_BOUND}: the largest non-goal value of the trained corridor critic (V = "
                       f"{[round(x, 3) for x in v[:6].tolist()]}); no corridor return exceeds 0.99, the critic may "
                       "overshoot slightly; the bug's returns run on across terminals (~15)", source=source,
                 limit=CORRIDOR_BOUND if math.isfinite(top) else None, sense="<" if math.isfinite(top) else None)


def logged_updates(text):
    """{update: [lr, episode return, value loss, mean target, mean V, V(A), V(B)]} from a run's output."""
    rows = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("update") and "mean target" in line:
            nums = numbers(line)
            if len(nums) == 8 and nums[0] == int(nums[0]):
                rows[int(nums[0])] = nums[1:]
    return rows


def readme(run, measured, checks):
    """Checks on what the README command printed (probe, seed 0), as the user runs it."""
    rows = logged_updates(run["stdout"])
    complete = sorted(rows) == README_UPDATES
    last = rows.get(README_UPDATES[-1])
    top_target = max((r[3] for r in rows.values()), default=float("inf"))
    ok = (complete and top_target < PAYOUT_BOUND
          and abs(last[5] - GAMMA) < PROBE_TOL and abs(last[6] - 1.0) < PROBE_TOL)
    checks.check("readme_run_values_within_payout", ok,
                 value={"updates_logged": sorted(rows), "max_mean_target": top_target,
                        "last_V_obs": last[5:] if last else None},
                 bound=f"updates {README_UPDATES[0]}..{README_UPDATES[-1]} logged; mean target < {PAYOUT_BOUND} at "
                       f"each; last V(obs) = {GAMMA} / 1.00 +- {PROBE_TOL}", source="readme_run")

    if README_SEED not in measured:
        raise Unreadable(f"no usable measurement for seed {README_SEED} to compare the README run with")
    m = measured[README_SEED]
    v, source = critic_values(m, "probe", 3, 1)
    trained = [round(x, 4) for x in v[:2].tolist()]
    err = max(abs(a - b) for a, b in zip(last[5:], trained)) if last else float("inf")
    checks.check("readme_run_critic_is_the_trained_critic", err <= PRINT_TOL,
                 value={"printed_last_V_obs": last[5:] if last else None, "trained_critic_seed0": trained,
                        "trained_critic_source": source},
                 bound=f"within {PRINT_TOL}: the printed last V(obs) are the values of the critic the measuring process "
                       "trained at the same settings", source="readme_run")

    mine = logged_updates(m.value("probe_printed", str))
    mismatched = [u for u in README_UPDATES
                  if u not in rows or u not in mine or any(abs(a - b) > LINE_TOL for a, b in zip(rows[u], mine[u]))]
    checks.check("readme_run_matches_verifier_run", not mismatched,
                 value={"mismatched_updates": mismatched, "readme_run_last": last,
                        "verifier_run_last": mine.get(README_UPDATES[-1])},
                 bound=f"every logged update equal to the measuring process's seed-0 probe run within {LINE_TOL}",
                 source="readme_run")


decide_main(decide, readme=readme)
