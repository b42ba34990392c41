"""case_09 verifier: returns must stop at true terminals and bootstrap through time limits.

Fixed rollouts on the two-step probe (reward 0 then 1, terminal after two steps, gamma 0.99)
are collected with the workspace's own env and rollout code, using a stand-in critic whose
value is a known constant c, so every return has a hand value:

- episodes that end by termination: [gamma, 1] per episode, whatever c is (no tail);
- a rollout that stops mid-episode: the last step bootstraps, gamma * c;
- a time-limit cut (max_episode_steps=1): the task would go on, so gamma * c, not 0 --
  this is what rejects "mask on terminated-or-truncated";
- a step that is both terminal and at the time limit (max_episode_steps=2) is terminal.

Bootstrapping across the reset gives 2.91/2.94 instead of 0.99/1.0 on the 6-step rollout.
Then the real trainer is run at the repo's probe settings and its critic must reach
V(first obs) = 0.99 and V(second obs) = 1.0 within 0.02; across-reset bootstrapping drives
both far above 1 (values near 1/(1-gamma^2) in the limit).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from verifylib import SEEDS, Checks, setup  # noqa: E402

setup()
import torch  # noqa: E402

import envs  # noqa: E402  (the agent's code)
import rollout  # noqa: E402
import train  # noqa: E402

GAMMA = 0.99
C = 0.5
TOL = 1e-6


class ConstCritic(torch.nn.Module):
    def __init__(self, n_actions, value):
        super().__init__()
        self.n_actions, self.value = n_actions, value

    def forward(self, obs):
        lead = obs.shape[:-1]
        return torch.zeros(*lead, self.n_actions), torch.full(lead, self.value)


def probe_rollout(seed, n_steps, max_episode_steps, value=C, n_envs=3):
    env = envs.make_env("probe", n_envs, max_episode_steps, seed=seed)
    obs, _ = env.reset()
    ro, _, _ = rollout.collect(env, ConstCritic(env.n_actions, value), obs, n_steps, GAMMA)
    return ro


def max_err(ro, hand):
    want = torch.tensor(hand, dtype=torch.float64)[:, None].expand(-1, ro.returns.shape[1])
    return (ro.returns.double() - want).abs().max().item()


checks = Checks()
for seed in SEEDS:
    with checks.seed(seed):
        torch.manual_seed(seed)
        g, c = GAMMA, C
        ro = probe_rollout(seed, 6, 50)
        checks.check("terminal_flag_at_final_transition",
                     bool(ro.terminated[1].all() and ro.terminated[3].all() and not ro.terminated[0].any()
                          and not ro.truncated.any()),
                     value={"terminated_t1": ro.terminated[1].tolist(), "truncated_t1": ro.truncated[1].tolist()},
                     bound="terminated at t=1,3; never truncated")
        hand = [g, 1.0, g, 1.0, g, 1.0]
        err = max_err(ro, hand)
        checks.check("probe_returns_equal_hand_values", err < TOL,
                     value={"err": err, "returns_col0": [round(v, 6) for v in ro.returns[:, 0].tolist()]},
                     bound=f"|G - {[round(h, 4) for h in hand]}| < {TOL}")

        ro = probe_rollout(seed, 5, 50)
        hand = [g, 1.0, g, 1.0, g * c]
        err = max_err(ro, hand)
        checks.check("rollout_end_bootstraps", err < TOL,
                     value={"err": err, "returns_col0": [round(v, 6) for v in ro.returns[:, 0].tolist()]},
                     bound=f"|G - {[round(h, 4) for h in hand]}| < {TOL}")

        ro = probe_rollout(seed, 4, 1)
        hand = [g * c] * 4
        err = max_err(ro, hand)
        checks.check("truncated_steps_bootstrap", err < TOL and bool(ro.truncated.all()) and not ro.terminated.any(),
                     value={"err": err, "returns_col0": [round(v, 6) for v in ro.returns[:, 0].tolist()],
                            "truncated": bool(ro.truncated.all())},
                     bound=f"time-limit cuts: G = gamma*V(reached) = {g * c:.4f} +- {TOL}")

        ro = probe_rollout(seed, 4, 2)
        hand = [g, 1.0, g, 1.0]
        err = max_err(ro, hand)
        checks.check("terminal_at_time_limit_is_terminal", err < TOL,
                     value={"err": err, "returns_col0": [round(v, 6) for v in ro.returns[:, 0].tolist()]},
                     bound=f"|G - {[round(h, 4) for h in hand]}| < {TOL}")

        cfg = train.Config(seed=seed, env="probe", gamma=GAMMA)
        model, _ = train.train(cfg)
        with torch.no_grad():
            v = model(torch.eye(3)[:2])[1].tolist()
        checks.check("critic_learns_probe_values", abs(v[0] - g) < 0.02 and abs(v[1] - 1.0) < 0.02,
                     value=[round(x, 4) for x in v], bound="V(s0) = 0.99 +- 0.02, V(s1) = 1.00 +- 0.02")
checks.finish()
