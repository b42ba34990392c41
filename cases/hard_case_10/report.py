"""A plain-text report of a trained field: a profile table against the analytic solution and,
for heat-conduction problems, the heat flux through each face."""

from __future__ import annotations

import torch

from autodiff import derivative, with_grad
from metrics import evaluate, evaluation_grid, profile, residual_rms


def face_fluxes(model, problem) -> tuple[float, float] | None:
    """Conductive heat flux -k du/dx at x = 0 and x = L [W/m^2], or None without a conductivity."""
    k = getattr(problem, "k", None)
    if k is None:
        return None
    x = with_grad(problem.faces())
    flux = -k * derivative(model(x), x)
    return tuple(flux.detach().flatten().tolist())


def exact_fluxes(problem) -> tuple[float, float] | None:
    k = getattr(problem, "k", None)
    if k is None:
        return None
    x = problem.faces().clone().requires_grad_(True)
    u = problem.exact(x)
    grad = torch.autograd.grad(u.sum(), x)[0]
    return tuple((-k * grad).flatten().tolist())


def print_report(model, problem, n: int = 11) -> None:
    unit = problem.unit or "-"
    print(f"{'x':>10s} | {'u [' + unit + ']':>12s} | {'exact':>12s} | {'error':>10s}")
    for x, u, ue in profile(model, problem, n):
        print(f"{x:10.3e} | {u:12.4f} | {ue:12.4f} | {u - ue:10.3e}")
    ev = evaluate(model, problem)
    print(f"rel L2 {ev['rel_l2']:.2e} | max error {ev['max_err']:.3e} {unit} | "
          f"equation residual RMS {residual_rms(model, problem, evaluation_grid(problem.L, 101)):.3e}")
    fluxes, want = face_fluxes(model, problem), exact_fluxes(problem)
    if fluxes is not None:
        print(f"heat flux at x=0: {fluxes[0]:.4e} W/m^2 (exact {want[0]:.4e}); "
              f"at x=L: {fluxes[1]:.4e} W/m^2 (exact {want[1]:.4e})")
