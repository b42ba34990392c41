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

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.cleared_terminal_flags import (  # noqa: E402
    CORRIDOR_BOUND, ENV_TRACES, GAMMA, INIT_FAR, PRINT_TOL, PROBE_TOL, RETURN_TOL, ROLLOUTS, TRACE_KEYS,
    check_env_trace, critic_values, distance_at_initial_parameters, probe_hand_returns, readme_checks, trace_not_run)
from verifylib import decide_main  # noqa: E402

import torch  # noqa: E402

FLAGS_BOUND = "every returned terminated/truncated flag equals the task's, the task's rules hold, at least one episode end"
LOGGED_COLUMNS = 6  # episode return, value loss, mean target, mean V, V(A), V(B)


def decide(seed, m, checks):
    for key in ENV_TRACES:
        if trace_not_run(m, f"env_{key}_ran", key):
            checks.check(f"env_step_flags[{key}]", True, value="not run: the env has no step_cost attribute",
                         bound="optional trace")
            continue
        check_env_trace(f"env_step_flags[{key}]", key, m.tensors(f"env_{key}", keys=TRACE_KEYS), checks, FLAGS_BOUND)

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

    far, value = distance_at_initial_parameters(m)
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


def readme(run, measured, checks):
    """Checks on what `python train.py` printed (probe, seed 0), as the user runs it."""
    readme_checks(run, measured, checks, columns=LOGGED_COLUMNS, trained_critic_bound=f"within {PRINT_TOL}")


decide_main(decide, readme=readme)
