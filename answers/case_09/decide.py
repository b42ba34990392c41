"""case_09, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-c09-5e3a91c07b24d8f6

The bug: BatchedEnv.step hands back its live term_buf after reset_idx has cleared it for the
copies that just finished, so every `terminated` flag is False, returns run on across true
terminals into the next episode, and the critic climbs far past anything the task pays (V ~ 15
after 120 updates, on the probe and on the corridor alike). The invariant is the flag itself,
and the n-step returns built from it: stop at a termination, bootstrap from the state reached
at a time-limit cut. Checks per seed:

- recomputed `env_step_flags[<trace>]`: the agent's env, stepped with recorded actions, is
  replayed here with this file's own copy of the task rules (state from the one-hot
  observation; probe: A -> B -> terminal, +1 on the second step; corridor: move left/right,
  the right end pays 0.99 and ends the episode, -0.01 otherwise). The rewards and the next
  observations must follow those rules, and every `terminated` / `truncated` flag step()
  returned must equal the true one, on the probe at max_episode_steps 50, 2 (termination and
  time limit on the same step) and 1 (every step a time-limit cut), and on the corridor, the
  README's task, at 50 and 5, and on the corridor with every step paying +0.02 (when the env
  has a step_cost attribute to set; a flag derived from the reward's sign fails there). The
  bug returns no terminated flag at all;
- recomputed `rollout_returns[<n_steps, max_episode_steps>]`: the returns of the agent's
  collect() on its probe env with a stand-in critic V = (0.3, 0.5, 0.7) by state equal the
  returns computed here: [gamma, 1, ...] for whole episodes, gamma * V(B) at the rollout's
  end and at each time-limit cut, and 1 at a termination that coincides with the time limit
  (bug: 2.91/2.94 ...; masking on terminated-or-truncated: 0 at the cuts);
- recomputed `probe_critic_values`: the critic trained by `python train.py` (the README's
  settings), loaded into this file's own copy of ActorCritic, reads V(A) = 0.99 +- 0.02 and
  V(B) = 1.00 +- 0.02 (bug: ~15);
- recomputed `corridor_critic_values`: the critic trained on the corridor at the same
  settings reads below 1.05 in every non-goal state: no return there can exceed 0.99 (fixed:
  0.89-0.99; bug: ~15);
  (both critic checks fall back to the values the measuring process reported, marked
  `reported`, only when the state_dict does not fit this file's copy of the model);
- reported `probe_critic_comes_from_training`: the probe critic's values, evaluated by the
  measuring process with every parameter the optimizer trained put back to its value before
  the first step, are far from the answer (max(|V(A) - 0.99|, |V(B) - 1|) > 0.1; the case's
  untrained critic reads -0.05 to 0.20 on seeds 0-2): a critic whose values are hard-coded, or
  do not depend on what the optimizer trains, does not move and fails;
- reported `trainer_ran_readme_settings`: each training made 120-121 Adam steps at lr 3e-3.

And once, on what `python train.py` (the README's command, run by the harness on a fresh copy of
the agent's files as the user runs it: plain python, no hooks; the probe, seed 0, the settings
above) printed, so that code which behaves only under the verifier, or a critic whose values do
not come from these returns, fails (`readme_run` rows):

- `readme_run_completes` (verifylib, every case): exit code 0, not timed out;
- `readme_run_values_within_payout`: the symptom the README shows is gone: at every logged
  update (0, 20, ..., 120) the mean return target is below 1.05 (nothing on the probe pays
  more than 1: every fix prints 0.995, the mean of gamma and 1; bug: 2.65 at update 0, 16.9 at
  120), and the last V(obs) reads 0.99 / 1.00 +- 0.02 (bug: 15.4 / 15.5). Only returns that
  run across terminations (or skip the bootstrap) push the targets above 1. The mean V is not
  bounded at every update: an honest critic overshoots on its way (1.16 at update 20);
- `readme_run_critic_is_the_trained_critic`: the printed last V(obs) equal the values of the
  seed-0 probe critic the measuring process trained at the same settings (recomputed from its
  weights here, or as reported when they do not fit this file's model), within 1.5e-3
  (printed to 3 decimals);
- `readme_run_matches_verifier_run`: every logged line (episode return, value loss, mean
  target, mean V, V(obs)) equals what the agent's train() printed for the probe on seed 0
  under the measuring process, within 2e-3 (2 units of the coarsest printed digit). Code that
  behaves differently under the verifier (python -I, its argv, its hooks) moves them.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import Unreadable, decide_main, numbers  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

GAMMA = 0.99
ENV_TRACES = {  # name: (env, n_envs, max_episode_steps, steps) -- as the measuring half runs them
    "probe_t50": ("probe", 4, 50, 8),
    "probe_t2": ("probe", 4, 2, 6),
    "probe_t1": ("probe", 4, 1, 4),
    "corridor_t50": ("corridor", 8, 50, 160),
    "corridor_t5": ("corridor", 8, 5, 120),
    "corridor_paid_steps": ("corridor", 8, 50, 120),
}
STEP_COST = {"corridor_paid_steps": -0.02}  # the corridor's step_cost in that trace (shipped: 0.01)
ROLLOUTS = {"n6_t50": (3, 6, 50), "n5_t50": (3, 5, 50), "n4_t1": (3, 4, 1), "n4_t2": (3, 4, 2)}
PROBE_CRITIC = (0.3, 0.5, 0.7)
RETURN_TOL = 1e-5
PROBE_TOL = 0.02
CORRIDOR_BOUND = 1.05
REWARD_TOL = 1e-6
README_SEED = 0
README_UPDATES = list(range(0, 121, 20))   # the updates `python train.py` logs (log_every 20)
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


def check_env_trace(key, trace, checks):
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
    checks.check(f"env_step_flags[{key}]", bad_term == 0 and bad_trunc == 0 and bad_dynamics == 0 and n_term + n_trunc > 0,
                 value=value, bound="every returned terminated/truncated flag equals the task's, "
                                    "the task's rules hold, at least one episode end")


def probe_hand_returns(n_steps, max_steps, gamma=GAMMA, w=PROBE_CRITIC):
    """Returns of the probe from a fresh reset, computed from the task's rules."""
    clock = elapsed = 0
    rows = []
    for _ in range(n_steps):
        clock, elapsed = clock + 1, elapsed + 1
        term, trunc = clock >= 2, elapsed >= max_steps
        rows.append((float(clock == 2), term, trunc, w[clock]))
        if term or trunc:
            clock = elapsed = 0
    out = [0.0] * n_steps
    for t in reversed(range(n_steps)):
        r, term, trunc, v_reached = rows[t]
        if term:
            out[t] = r
        elif trunc or t == n_steps - 1:
            out[t] = r + gamma * v_reached
        else:
            out[t] = r + gamma * out[t + 1]
    return out


def actor_critic(obs_dim, n_actions, hidden=32):
    """The case's ActorCritic (model.py), reproduced here."""
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
    for key in ENV_TRACES:
        if key in STEP_COST and m.value(f"env_{key}_ran", bool) is False:
            checks.check(f"env_step_flags[{key}]", True, value="not run: the env has no step_cost attribute",
                         bound="optional trace")
            continue
        trace = m.tensors(f"env_{key}", keys=["obs0", "actions", "obs", "reward", "terminated", "truncated"])
        check_env_trace(key, trace, checks)

    returns = m.tensors("rollout_returns", keys=list(ROLLOUTS))
    for key, (n_envs, n_steps, max_steps) in ROLLOUTS.items():
        got = returns[key].double()
        hand = torch.tensor(probe_hand_returns(n_steps, max_steps), dtype=torch.float64)
        if tuple(got.shape) != (n_steps, n_envs):
            checks.check(f"rollout_returns[n_steps={n_steps},max_episode_steps={max_steps}]", False,
                         value=f"shape {tuple(got.shape)}", bound=f"shape {(n_steps, n_envs)}")
            continue
        err = (got - hand[:, None]).abs().max().item()
        checks.check(f"rollout_returns[n_steps={n_steps},max_episode_steps={max_steps}]", err < RETURN_TOL,
                     value=round(err, 7), limit=RETURN_TOL, sense="<",
                     bound=f"< {RETURN_TOL}: max |return - the rules' return| (env 0 got "
                           f"{[round(v, 4) for v in got[:, 0].tolist()]}, want {[round(h, 4) for h in hand.tolist()]}); "
                           "running on across a termination or masking a time-limit cut moves it")

    for env_name in ("probe", "corridor"):
        n, kinds, lrs = (m.number(f"{env_name}_optimizer_steps"), m.value(f"{env_name}_optimizers", list),
                         m.value(f"{env_name}_learning_rates", list))
        checks.check(f"trainer_ran_readme_settings[{env_name}]", 120 <= n <= 121 and kinds == ["Adam"] and lrs == [3e-3],
                     value={"steps": n, "optimizers": kinds, "lrs": lrs}, bound="120-121 Adam steps at lr 3e-3",
                     source="reported")

    v, source = critic_values(m, "probe", 3, 1)
    ok = abs(v[0].item() - GAMMA) < PROBE_TOL and abs(v[1].item() - 1.0) < PROBE_TOL
    checks.check("probe_critic_values", ok, value=[round(x, 4) for x in v[:2].tolist()],
                 bound=f"V(A) = {GAMMA} +- {PROBE_TOL}, V(B) = 1.00 +- {PROBE_TOL}", source=source)

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
    checks.check("probe_critic_comes_from_training", far > INIT_FAR, value=round(far, 4), limit=INIT_FAR, sense=">",
                 reason=str(value),
                 bound=f"max(|V(A) - {GAMMA}|, |V(B) - 1|) > {INIT_FAR} with the trained parameters at their initial values",
                 source="reported")

    v, source = critic_values(m, "corridor", 7, 2)
    top = v[:6].max().item()
    checks.check("corridor_critic_values", top < CORRIDOR_BOUND,
                 value=round(top, 4), limit=CORRIDOR_BOUND, sense="<", source=source,
                 bound=f"< {CORRIDOR_BOUND}: the largest non-goal V ({[round(x, 3) for x in v[:6].tolist()]}); no corridor "
                       "return exceeds 0.99 (the critic may overshoot slightly), returns that run across terminations "
                       "climb to ~15")


def logged_updates(text):
    """{update: [episode return, value loss, mean target, mean V, V(A), V(B)]} from a run's output."""
    rows = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("update") and "mean target" in line:
            nums = numbers(line)
            if len(nums) == 7 and nums[0] == int(nums[0]):
                rows[int(nums[0])] = nums[1:]
    return rows


def readme(run, measured, checks):
    """Checks on what `python train.py` printed (probe, seed 0), as the user runs it."""
    rows = logged_updates(run["stdout"])
    complete = sorted(rows) == README_UPDATES
    last = rows.get(README_UPDATES[-1])
    top_target = max((r[2] for r in rows.values()), default=float("inf"))
    ok = (complete and top_target < PAYOUT_BOUND
          and abs(last[4] - GAMMA) < PROBE_TOL and abs(last[5] - 1.0) < PROBE_TOL)
    checks.check("readme_run_values_within_payout", ok,
                 value={"updates_logged": sorted(rows), "max_mean_target": top_target,
                        "last_V_obs": last[4:] if last else None},
                 bound=f"updates {README_UPDATES[0]}..{README_UPDATES[-1]} logged; mean target < {PAYOUT_BOUND} at "
                       f"each; last V(obs) = {GAMMA} / 1.00 +- {PROBE_TOL}", source="readme_run")

    if README_SEED not in measured:
        raise Unreadable(f"no usable measurement for seed {README_SEED} to compare the README run with")
    m = measured[README_SEED]
    v, source = critic_values(m, "probe", 3, 1)
    trained = [round(x, 4) for x in v[:2].tolist()]
    err = max(abs(a - b) for a, b in zip(last[4:], trained)) if last else float("inf")
    checks.check("readme_run_critic_is_the_trained_critic", err <= PRINT_TOL,
                 value={"printed_last_V_obs": last[4:] if last else None, "trained_critic_seed0": trained,
                        "trained_critic_source": source},
                 bound=f"within {PRINT_TOL}", source="readme_run")

    mine = logged_updates(m.value("probe_printed", str))
    mismatched = [u for u in README_UPDATES
                  if u not in rows or u not in mine or any(abs(a - b) > LINE_TOL for a, b in zip(rows[u], mine[u]))]
    checks.check("readme_run_matches_verifier_run", not mismatched,
                 value={"mismatched_updates": mismatched, "readme_run_last": last,
                        "verifier_run_last": mine.get(README_UPDATES[-1])},
                 bound=f"every logged update equal to the measuring process's seed-0 probe run within {LINE_TOL}",
                 source="readme_run")


decide_main(decide, readme=readme)
