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

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.cleared_terminal_flags import (  # noqa: E402
    CORRIDOR_BOUND, ENV_TRACES, GAMMA, INIT_FAR, PRINT_TOL, PROBE_TOL, RETURN_TOL, ROLLOUTS, TRACE_KEYS,
    check_env_trace, critic_values, distance_at_initial_parameters, probe_hand_returns, readme_checks, trace_not_run)
from verifylib import decide_main  # noqa: E402

import torch  # noqa: E402

LAMBDA = 0.95
BACKENDS = ("sync", "buffered")
ESTIMATORS = ("nstep", "gae")
PEAK_LR = 3e-3
FLAGS_BOUND = ("every returned terminated/truncated flag equals the task's, the task's rules hold, at least one "
               "episode end: the bug returns a buffer reset_idx has already cleared, so no terminated flag survives")
LOGGED_COLUMNS = 7  # lr, episode return, value loss, mean target, mean V, V(A), V(B)


def decide(seed, m, checks):
    for backend in BACKENDS:
        for key in ENV_TRACES:
            if trace_not_run(m, f"env_{backend}_{key}_ran", key):
                checks.check(f"env_step_flags[{backend}:{key}]", True,
                             value="not run: make_vector_env takes no step_cost", bound="optional trace")
                continue
            trace = m.tensors(f"env_{backend}_{key}", keys=TRACE_KEYS)
            check_env_trace(f"env_step_flags[{backend}:{key}]", key, trace, checks, FLAGS_BOUND)

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
    hand = torch.tensor(probe_hand_returns(n_steps, max_steps, estimator, lam=LAMBDA), dtype=torch.float64)
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

    far, value = distance_at_initial_parameters(m)
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


def readme(run, measured, checks):
    """Checks on what the README command printed (probe, seed 0), as the user runs it."""
    readme_checks(run, measured, checks, columns=LOGGED_COLUMNS,
                  trained_critic_bound=f"within {PRINT_TOL}: the printed last V(obs) are the values of the critic the "
                                       "measuring process trained at the same settings")


decide_main(decide, readme=readme)
