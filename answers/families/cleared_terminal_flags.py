"""The cleared terminal flags (case_09, hard_case_09): an env's step() hands back its live
`terminated` buffer after reset_idx has cleared it for the copies that just finished, so returns
run on across true terminals and the critic climbs far past anything the task pays.

Both cases run the same two tasks (probe, corridor), the same env traces, rollouts and trainings,
and check them against the same task rules and bounds, which live here. What differs (entry points,
backends, estimators, the checks' wording, the trainer's learning-rate rule) stays in each case's halves.
"""

from verifylib import Unreadable, numbers

# --- what both halves of both cases run and bound ----------------------------------------------------

GAMMA = 0.99
# name: (task, n_envs, max_episode_steps, steps, probability of moving right)
ENV_TRACES = {
    "probe_t50": ("probe", 4, 50, 8, 0.0),
    "probe_t2": ("probe", 4, 2, 6, 0.0),
    "probe_t1": ("probe", 4, 1, 4, 0.0),
    "corridor_t50": ("corridor", 8, 50, 160, 0.7),
    "corridor_t5": ("corridor", 8, 5, 120, 0.7),
    # the corridor paying +0.02 per step (step_cost -0.02): positive rewards that end nothing
    "corridor_paid_steps": ("corridor", 8, 50, 120, 0.7),
}
TRACE_OPTIONS = {"corridor_paid_steps": {"step_cost": -0.02}}  # set on the env (shipped step_cost: 0.01)
TRACE_KEYS = ["obs0", "actions", "obs", "reward", "terminated", "truncated"]
# name: (n_envs, n_steps, max_episode_steps), all on the probe
ROLLOUTS = {"n6_t50": (3, 6, 50), "n5_t50": (3, 5, 50), "n4_t1": (3, 4, 1), "n4_t2": (3, 4, 2)}
PROBE_CRITIC = (0.3, 0.5, 0.7)  # stand-in critic: V(one-hot state i) = PROBE_CRITIC[i]
TRAININGS = (("probe", 3), ("corridor", 7))  # (task, number of states)

RETURN_TOL = 1e-5
PROBE_TOL = 0.02
CORRIDOR_BOUND = 1.05
REWARD_TOL = 1e-6
README_SEED = 0
README_UPDATES = list(range(0, 121, 20))   # the updates the README run logs (log_every 20)
PAYOUT_BOUND = 1.05                         # no probe return exceeds 1.0
INIT_FAR = 0.1                              # an untrained critic's distance from (gamma, 1)
PRINT_TOL = 1.5e-3                          # a value printed to 3 decimals against a recomputed one
LINE_TOL = 2e-3                             # the same line printed by two runs of one computation

# --- measuring half (measure.py, beside the agent's code) ------------------------------------------


def as_tensor(x, dtype):
    import torch

    return torch.as_tensor(x).detach().to(dtype).clone()


def reset_obs(reset_out):
    return reset_out[0] if isinstance(reset_out, tuple) else reset_out


def step_trace(env, n_envs, steps, p_right, seed):
    """The env reset, then stepped with actions drawn here; every value step() returns copied the moment
    it is returned (the env may reuse its buffers on the next step)."""
    import torch

    obs0 = as_tensor(reset_obs(env.reset()), torch.float32)
    g = torch.Generator().manual_seed(1000 + seed)
    rows = {k: [] for k in ("actions", "obs", "reward", "terminated", "truncated")}
    for _ in range(steps):
        actions = (torch.rand(n_envs, generator=g) < p_right).long()
        obs, reward, term, trunc, _info = env.step(actions.clone())
        rows["actions"].append(actions)
        rows["obs"].append(as_tensor(obs, torch.float32))
        rows["reward"].append(as_tensor(reward, torch.float32))
        rows["terminated"].append(as_tensor(term, torch.bool))
        rows["truncated"].append(as_tensor(trunc, torch.bool))
    out = {k: torch.stack(v) for k, v in rows.items()}
    out["obs0"] = obs0
    return out


def stand_in_critic(w, n_actions, heads=False):
    """A model with zero policy logits and V(obs) = obs @ w, a known function of the state reached.
    ``heads``: also give it ``actor`` and ``critic`` callables, as case_09's model has."""
    import torch

    class StandInCritic(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.tensor(w)
            self.n_actions = n_actions
            if heads:
                self.actor = lambda obs: torch.zeros(*obs.shape[:-1], n_actions)
                self.critic = lambda obs: (obs.float() @ self.w).unsqueeze(-1)

        def forward(self, obs):
            obs = torch.as_tensor(obs).float()
            return torch.zeros(*obs.shape[:-1], self.n_actions), obs @ self.w

    return StandInCritic()


def record_trainings(rec, trainer_for, lr_cap):
    """Train on each task at the README's settings and record the trained model, its values on the
    one-hot states, every optimizer step's class and learning rates (the first ``lr_cap`` distinct ones),
    what the probe training printed, and the probe critic's values with every parameter the optimizer
    trains put back to its value before the first step (then restored).

    ``trainer_for(task)``: a callable that runs the agent's training and returns (model, ...); it is
    called with stdout captured."""
    import contextlib
    import io

    import torch
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    steps, initial = [], []

    def on_step(opt, args, kwargs):
        steps.append((type(opt).__name__, [g["lr"] for g in opt.param_groups]))
        if not initial:  # the parameters as they were before the first step of this training
            initial.extend((p, p.detach().clone()) for g in opt.param_groups for p in g["params"])

    handle = register_optimizer_step_pre_hook(on_step)
    try:
        for task, n_states in TRAININGS:
            steps.clear()
            initial.clear()
            train = trainer_for(task)
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                model, _ = train()
            if task == "probe":
                rec.put("probe_printed", printed.getvalue()[:20000])
            rec.put(f"{task}_optimizer_steps", len(steps))
            rec.put(f"{task}_optimizers", sorted({kind for kind, _ in steps}))
            rec.put(f"{task}_learning_rates", sorted({lr for _, lrs in steps for lr in lrs})[:lr_cap])
            rec.save(f"{task}_model", model.state_dict())
            with torch.no_grad():
                values = model(torch.eye(n_states))[1]
            rec.save(f"{task}_values", {"values": as_tensor(values, torch.float64).reshape(-1)})
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
                    rec.save("probe_values_at_init", {"values": as_tensor(values0, torch.float64).reshape(-1)})
    finally:
        handle.remove()


# --- deciding half (decide.py; never imports the agent's code) ----------------------------------------


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
    import torch

    if obs.shape[-1] != n:
        raise Unreadable(f"observations have {obs.shape[-1]} features, expected {n}")
    ok = ((obs == 0) | (obs == 1)).all(-1) & (obs.sum(-1) == 1)
    return torch.where(ok, obs.argmax(-1), torch.full(obs.shape[:-1], -1))


def trace_not_run(m, ran_name, key):
    """True when the trace ``key`` needs an env option and the measuring process could not set it."""
    return key in TRACE_OPTIONS and m.value(ran_name, bool) is False


def check_env_trace(name, key, trace, checks, bound):
    """The check ``name``: the trace ``key`` replayed with the task's rules; every flag equals the true one."""
    task_name, n_envs, max_steps, steps, _p_right = ENV_TRACES[key]
    task = Task(task_name, TRACE_OPTIONS.get(key, {}).get("step_cost", 0.01))
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
    checks.check(name, bad_term == 0 and bad_trunc == 0 and bad_dynamics == 0 and n_term + n_trunc > 0,
                 value=value, bound=bound)


def probe_hand_returns(n_steps, max_steps, estimator="nstep", gamma=GAMMA, lam=None, w=PROBE_CRITIC):
    """Returns of the probe from a fresh reset, computed from the task's rules (n-step, or GAE with ``lam``)."""
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
    """The cases' actor-critic (separate actor and critic MLPs), reproduced here."""
    import torch.nn as nn

    def mlp(n_in, n_out):
        return nn.Sequential(nn.Linear(n_in, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                             nn.Linear(hidden, n_out))
    model = nn.Module()
    model.actor = mlp(obs_dim, n_actions)
    model.critic = mlp(obs_dim, 1)
    return model


def critic_values(m, env_name, obs_dim, n_actions):
    """(values of the trained critic on the one-hot states, source)."""
    import torch

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


def distance_at_initial_parameters(m):
    """(max(|V(A) - gamma|, |V(B) - 1|) of the probe critic with its trained parameters at their initial
    values (0 when nothing was trained or it is NaN), what to show with it)."""
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
    return far, value


def logged_updates(text, columns):
    """{update: [the ``columns`` numbers after the update number]} from a run's 'update ... mean target' lines."""
    rows = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("update") and "mean target" in line:
            nums = numbers(line)
            if len(nums) == columns + 1 and nums[0] == int(nums[0]):
                rows[int(nums[0])] = nums[1:]
    return rows


def readme_checks(run, measured, checks, *, columns, trained_critic_bound):
    """The checks on what the README's command printed (probe, seed 0). ``columns``: the numbers a logged
    update prints after its number, ending with [..., mean target, mean V, V(A), V(B)]."""
    target, v_obs = columns - 4, columns - 2
    rows = logged_updates(run["stdout"], columns)
    complete = sorted(rows) == README_UPDATES
    last = rows.get(README_UPDATES[-1])
    top_target = max((r[target] for r in rows.values()), default=float("inf"))
    ok = (complete and top_target < PAYOUT_BOUND
          and abs(last[v_obs] - GAMMA) < PROBE_TOL and abs(last[v_obs + 1] - 1.0) < PROBE_TOL)
    checks.check("readme_run_values_within_payout", ok,
                 value={"updates_logged": sorted(rows), "max_mean_target": top_target,
                        "last_V_obs": last[v_obs:] if last else None},
                 bound=f"updates {README_UPDATES[0]}..{README_UPDATES[-1]} logged; mean target < {PAYOUT_BOUND} at "
                       f"each; last V(obs) = {GAMMA} / 1.00 +- {PROBE_TOL}", source="readme_run")

    if README_SEED not in measured:
        raise Unreadable(f"no usable measurement for seed {README_SEED} to compare the README run with")
    m = measured[README_SEED]
    v, source = critic_values(m, "probe", 3, 1)
    trained = [round(x, 4) for x in v[:2].tolist()]
    err = max(abs(a - b) for a, b in zip(last[v_obs:], trained)) if last else float("inf")
    checks.check("readme_run_critic_is_the_trained_critic", err <= PRINT_TOL,
                 value={"printed_last_V_obs": last[v_obs:] if last else None, "trained_critic_seed0": trained,
                        "trained_critic_source": source},
                 bound=trained_critic_bound, source="readme_run")

    mine = logged_updates(m.value("probe_printed", str), columns)
    mismatched = [u for u in README_UPDATES
                  if u not in rows or u not in mine or any(abs(a - b) > LINE_TOL for a, b in zip(rows[u], mine[u]))]
    checks.check("readme_run_matches_verifier_run", not mismatched,
                 value={"mismatched_updates": mismatched, "readme_run_last": last,
                        "verifier_run_last": mine.get(README_UPDATES[-1])},
                 bound=f"every logged update equal to the measuring process's seed-0 probe run within {LINE_TOL}",
                 source="readme_run")
