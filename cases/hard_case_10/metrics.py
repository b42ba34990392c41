"""Accuracy of a trained field against the problem's analytic solution."""

from __future__ import annotations

import torch

DTYPE = torch.float64


def evaluation_grid(L: float, n: int = 201) -> torch.Tensor:
    return torch.linspace(0.0, L, n, dtype=DTYPE).unsqueeze(-1)


@torch.no_grad()
def evaluate(model, problem, n: int = 201) -> dict:
    """Errors at the two faces, the relative L2 error and the largest pointwise error."""
    x = evaluation_grid(problem.L, n)
    u, u_exact = model(x), problem.exact(x)
    faces = problem.faces()
    face_err = (model(faces) - problem.exact(faces)).abs().flatten().tolist()
    return {"face_err": face_err,
            "rel_l2": ((u - u_exact).norm() / u_exact.norm()).item(),
            "max_err": (u - u_exact).abs().max().item()}


def residual_rms(model, problem, x) -> float:
    """Root mean square of the equation residual at x (in the problem's residual units)."""
    r = problem.residual(model, x).detach()
    return r.pow(2).mean().sqrt().item()


def profile(model, problem, n: int = 11) -> list[tuple[float, float, float]]:
    """(x, u, exact) at n points, for export and reports."""
    x = evaluation_grid(problem.L, n)
    with torch.no_grad():
        u = model(x)
    return list(zip(x.flatten().tolist(), u.flatten().tolist(), problem.exact(x).flatten().tolist()))
