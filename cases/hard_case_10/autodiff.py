"""Derivatives of a network's output with respect to its input, by automatic differentiation.

Every helper keeps the graph (create_graph=True) so a loss built from the derivatives can itself
be differentiated with respect to the network's parameters.
"""

from __future__ import annotations

import torch


def with_grad(x: torch.Tensor) -> torch.Tensor:
    """A leaf copy of `x` that records operations, so derivatives with respect to it exist."""
    return x.detach().clone().requires_grad_(True)


def derivative(u: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """du/dx for a batch of scalar outputs u(x_i) (shape (n, 1)) at points x (shape (n, 1))."""
    return torch.autograd.grad(u.sum(), x, create_graph=True)[0]


def second_derivative(u: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    return derivative(derivative(u, x), x)


def value_and_derivatives(model, x: torch.Tensor, order: int = 2):
    """(u, [du/dx, d2u/dx2, ...]) at x, up to `order`."""
    x = with_grad(x)
    u = model(x)
    out, current = [], u
    for _ in range(order):
        current = derivative(current, x)
        out.append(current)
    return u, out
