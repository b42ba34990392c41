"""Collocation points: where the differential equation's residual is evaluated."""

from __future__ import annotations

import math
import warnings

import torch

DTYPE = torch.float64


def grid(n: int, L: float, include_ends: bool = True) -> torch.Tensor:
    if include_ends:
        x = torch.linspace(0.0, L, n, dtype=DTYPE)
    else:
        x = (torch.arange(n, dtype=DTYPE) + 0.5) * (L / n)
    return x.unsqueeze(-1)


def chebyshev(n: int, L: float, include_ends: bool = True) -> torch.Tensor:
    """Chebyshev-Gauss-Lobatto nodes (with the ends) or Chebyshev-Gauss nodes (without)."""
    k = torch.arange(n, dtype=DTYPE)
    if include_ends:
        z = -torch.cos(math.pi * k / (n - 1))
    else:
        z = -torch.cos(math.pi * (k + 0.5) / n)
    return (0.5 * L * (z + 1.0)).unsqueeze(-1)


def uniform_random(n: int, L: float, generator: torch.Generator) -> torch.Tensor:
    return (torch.rand(n, 1, dtype=DTYPE, generator=generator) * L).sort(dim=0).values


def stratified(n: int, L: float, generator: torch.Generator) -> torch.Tensor:
    """One uniform point in each of n equal cells: random, but without gaps or clumps."""
    offsets = torch.rand(n, dtype=DTYPE, generator=generator)
    return ((torch.arange(n, dtype=DTYPE) + offsets) * (L / n)).unsqueeze(-1)


SAMPLERS = ("grid", "chebyshev", "random", "stratified", "adaptive")


def refine(points: torch.Tensor, residual: torch.Tensor, n_new: int, L: float) -> torch.Tensor:
    """Residual-based refinement: a new point at the midpoint of each of the `n_new` intervals whose
    endpoints have the largest summed |residual|."""
    pts, order = points.flatten().sort()
    r = residual.detach().abs().flatten()[order]
    score = r[1:] + r[:-1]
    worst = score.topk(min(n_new, score.numel())).indices
    mids = 0.5 * (pts[worst] + pts[worst + 1])
    return torch.cat([pts, mids]).clamp(0.0, L).sort().values.unsqueeze(-1)


class Collocation:
    """The current collocation points; the random sampler can draw new ones as training goes."""

    def __init__(self, sampler_cfg, L: float, seed: int = 0):
        self.cfg = sampler_cfg
        self.L = L
        self.generator = torch.Generator().manual_seed(seed + 12345)
        if sampler_cfg.kind not in SAMPLERS:
            raise KeyError(f"unknown sampler {sampler_cfg.kind!r} (known: {', '.join(SAMPLERS)})")
        self.points = self._draw()
        on_faces = int(((self.points == 0.0) | (self.points == L)).sum())
        if on_faces:
            warnings.warn(f"{on_faces} of {len(self.points)} collocation points lie on the boundary; the residual "
                          f"is also evaluated where the boundary conditions apply", stacklevel=2)

    def _draw(self) -> torch.Tensor:
        n, L = self.cfg.n_points, self.L
        if self.cfg.kind in ("grid", "adaptive"):
            return grid(n, L, self.cfg.include_ends)
        if self.cfg.kind == "chebyshev":
            return chebyshev(n, L, self.cfg.include_ends)
        if self.cfg.kind == "stratified":
            return stratified(n, L, self.generator)
        return uniform_random(n, L, self.generator)

    def at_step(self, step: int, residual_fn=None) -> torch.Tensor:
        """The points to use at `step`; `residual_fn(points)` is needed by the adaptive sampler."""
        every = self.cfg.resample_every
        due = every > 0 and step > 0 and step % every == 0
        if due and self.cfg.kind in ("random", "stratified"):
            self.points = self._draw()
        elif due and self.cfg.kind == "adaptive" and residual_fn is not None:
            candidates = grid(4 * self.cfg.n_points, self.L, include_ends=False)
            self.points = refine(candidates, residual_fn(candidates), self.cfg.n_points, self.L)
        return self.points
