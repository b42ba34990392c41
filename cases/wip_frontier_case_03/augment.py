"""Training-time augmentation of a window's scaled inputs: the collar sits a little differently on every
cow and every day, and readings drop out when the gateway misses a packet."""

import torch


class CollarAugment:
    def __init__(self, gain_sd=0.08, noise_sd=0.45, dropout=0.03):
        self.gain_sd = gain_sd
        self.noise_sd = noise_sd
        self.dropout = dropout

    def __call__(self, x):
        x.mul_(1.0 + self.gain_sd * torch.randn(()))
        x.add_(self.noise_sd * torch.randn_like(x))
        x[torch.rand_like(x) < self.dropout] = 0.0
        return x
