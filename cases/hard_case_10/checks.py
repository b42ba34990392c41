"""Self-checks of a problem definition, run before trusting a training on it.

The analytic solution must satisfy the problem's own residual and boundary conditions (up to
rounding), and a perturbed field must not: a sign error or a wrong boundary value shows here
without any training.
"""

from __future__ import annotations

import torch

from metrics import evaluation_grid


class AnalyticField(torch.nn.Module):
    """The problem's exact solution as a model (plus an optional bump that vanishes at the faces)."""

    def __init__(self, problem, bump: float = 0.0):
        super().__init__()
        self.problem = problem
        self.bump = bump

    def forward(self, x):
        xi = x / self.problem.L
        return self.problem.exact(x) + self.bump * self.problem.output_scale * torch.sin(torch.pi * xi)


def check_problem(problem, n: int = 33) -> dict:
    """Residual and boundary residual of the exact solution and of a 1 % bump, each as max |.|."""
    x = evaluation_grid(problem.L, n)
    out = {}
    for label, bump in (("exact", 0.0), ("bumped", 0.01)):
        field = AnalyticField(problem, bump)
        out[f"{label}_residual"] = problem.residual(field, x).abs().max().item()
        out[f"{label}_boundary"] = problem.boundary_residual(field).abs().max().item()
    out["consistent"] = out["bumped_residual"] > 1e3 * max(out["exact_residual"], 1e-300)
    return out


def format_check(problem, result: dict) -> str:
    return (f"{problem.summary()}: exact solution residual {result['exact_residual']:.2e}, boundary "
            f"{result['exact_boundary']:.2e}; 1% bump residual {result['bumped_residual']:.2e}"
            + ("" if result["consistent"] else "  <-- the residual does not see the bump"))
