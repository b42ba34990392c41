import torch.nn as nn


def mlp(n_in, hidden, n_out):
    return nn.Sequential(nn.Linear(n_in, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                         nn.Linear(hidden, n_out))


class ActorCritic(nn.Module):
    """Separate policy and value MLPs over the same observation."""

    def __init__(self, obs_dim, n_actions, hidden=32):
        super().__init__()
        self.actor = mlp(obs_dim, hidden, n_actions)
        self.critic = mlp(obs_dim, hidden, 1)

    def forward(self, obs):
        return self.actor(obs), self.critic(obs).squeeze(-1)
