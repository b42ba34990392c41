"""Boundary-value problems on an interval [0, L], each with its analytic solution.

A problem gives the network what it must satisfy:

- ``residual(model, x)``: the differential equation's residual at interior points x (n, 1);
- ``boundary_residual(model)``: the boundary conditions' residuals, one row per condition;
- ``exact(x)``: the analytic solution, used only by metrics (never by the losses);
- ``output_scale``: a typical magnitude of the solution, which models.ScaledField multiplies the
  network's output by so that the network itself works with O(1) numbers.
"""

from __future__ import annotations

import math

import torch

from autodiff import derivative, second_derivative, with_grad

DTYPE = torch.float64


def column(values) -> torch.Tensor:
    return torch.tensor(values, dtype=DTYPE).unsqueeze(-1)


class Problem:
    name = "problem"
    unit = ""

    def __init__(self, L: float = 1.0):
        self.L = L

    @property
    def output_scale(self) -> float:
        return 1.0

    def residual(self, model, x):
        raise NotImplementedError

    def boundary_residual(self, model):
        raise NotImplementedError

    def exact(self, x):
        raise NotImplementedError

    def faces(self):
        """The two ends of the domain, x = 0 and x = L."""
        return column([0.0, self.L])

    def summary(self) -> str:
        return f"{self.name} on [0, {self.L:g}]"


class Poisson1D(Problem):
    """u'' = -pi^2 sin(pi x) on [0, 1], u(0) = u(1) = 0; u = sin(pi x). O(1) numbers only: a
    sanity problem for the network and the optimizer."""

    name = "poisson"

    def __init__(self, L: float = 1.0, **_):
        super().__init__(1.0)

    def residual(self, model, x):
        x = with_grad(x)
        u = model(x)
        return second_derivative(u, x) + math.pi ** 2 * torch.sin(math.pi * x)

    def boundary_residual(self, model):
        return model(self.faces())

    def exact(self, x):
        return torch.sin(math.pi * x)


class CoolingFin(Problem):
    """A straight pin fin: base held at T_hot, ambient air at T_cold, insulated tip.

    k T'' = (h P / A_c)(T - T_amb). Written in theta = (T - T_amb) / (T_hot - T_amb) and
    xi = x / L, the equation is theta'' = (mL)^2 theta with theta(0) = 1 and theta'(1) = 0,
    where m^2 = h P / (k A_c); the solution is cosh(mL (1 - xi)) / cosh(mL).
    """

    name = "fin"
    unit = "K"

    def __init__(self, L=0.05, T_hot=400.0, T_cold=300.0, k=50.0, h=25.0, perimeter_over_area=400.0, **_):
        super().__init__(L)
        self.T_base, self.T_amb, self.k = T_hot, T_cold, k
        self.mL = math.sqrt(h * perimeter_over_area / k) * L

    @property
    def output_scale(self):
        return 0.5 * (self.T_base + self.T_amb)

    def _theta(self, T):
        return (T - self.T_amb) / (self.T_base - self.T_amb)

    def residual(self, model, x):
        x = with_grad(x)
        T = model(x)
        theta_xixi = self.L ** 2 * second_derivative(T, x) / (self.T_base - self.T_amb)
        return theta_xixi - self.mL ** 2 * self._theta(T)

    def boundary_residual(self, model):
        base = self._theta(model(column([0.0]))) - 1.0
        tip_x = with_grad(column([self.L]))
        tip = self.L * derivative(model(tip_x), tip_x) / (self.T_base - self.T_amb)
        return torch.cat([base, tip])

    def exact(self, x):
        theta = torch.cosh(self.mL * (1.0 - x / self.L)) / math.cosh(self.mL)
        return self.T_amb + (self.T_base - self.T_amb) * theta

    def summary(self):
        return f"fin L={self.L:g} m, mL={self.mL:.3f}, base {self.T_base:g} K, air {self.T_amb:g} K"


class Slab(Problem):
    """Steady conduction through a plate: k T'' + q = 0 on [0, L], T(0) = T_hot, T(L) = T_cold."""

    name = "slab"
    unit = "K"

    def __init__(self, L=1e-3, T_hot=500.0, T_cold=300.0, k=50.0, q=0.0, **_):
        super().__init__(L)
        self.T_hot, self.T_cold, self.k, self.q = T_hot, T_cold, k, q

    @property
    def output_scale(self):
        return 0.5 * (self.T_hot + self.T_cold)

    def residual(self, model, x):
        x = with_grad(x)
        T = model(x)
        return self.k * second_derivative(T, x) + self.q

    def boundary_residual(self, model):
        return model(self.faces()) - column([self.T_hot, self.T_cold])

    def exact(self, x):
        xi = x / self.L
        return self.T_hot + (self.T_cold - self.T_hot) * xi + self.q * self.L ** 2 / (2 * self.k) * xi * (1 - xi)

    def summary(self):
        return f"slab L={self.L:g} m, k={self.k:g} W/(m K), faces {self.T_hot:g} K / {self.T_cold:g} K, q={self.q:g} W/m^3"


class CatalystPellet(Problem):
    """Reaction and diffusion in a catalyst slab, in the textbook's scaled variables: concentration
    c(xi) with c'' = phi^2 c on [0, 1], c(1) = 1 at the surface and c'(0) = 0 at the centre
    (symmetry); phi is the Thiele modulus. c = cosh(phi xi) / cosh(phi)."""

    name = "pellet"

    def __init__(self, L=1.0, q=2.0, **_):
        super().__init__(1.0)
        self.phi = q   # the Thiele modulus, given through problem.q

    def residual(self, model, x):
        x = with_grad(x)
        c = model(x)
        return second_derivative(c, x) - self.phi ** 2 * c

    def boundary_residual(self, model):
        centre = with_grad(column([0.0]))
        flux = derivative(model(centre), centre)
        surface = model(column([1.0])) - 1.0
        return torch.cat([flux, surface])

    def exact(self, x):
        return torch.cosh(self.phi * x) / math.cosh(self.phi)

    def summary(self):
        return f"pellet, Thiele modulus {self.phi:g}"


class ConvectionDiffusion(Problem):
    """Steady convection-diffusion in scaled variables: u'' = Pe u' on [0, 1], u(0) = 0, u(1) = 1,
    with the Peclet number Pe (given through problem.q). u = (exp(Pe x) - 1) / (exp(Pe) - 1): a
    boundary layer at x = 1 for large Pe."""

    name = "advection"

    def __init__(self, L=1.0, q=5.0, **_):
        super().__init__(1.0)
        self.peclet = q

    def residual(self, model, x):
        x = with_grad(x)
        u = model(x)
        du = derivative(u, x)
        return derivative(du, x) - self.peclet * du

    def boundary_residual(self, model):
        return model(self.faces()) - column([0.0, 1.0])

    def exact(self, x):
        return torch.expm1(self.peclet * x) / math.expm1(self.peclet)

    def summary(self):
        return f"convection-diffusion, Pe {self.peclet:g}"


PROBLEMS = {"poisson": Poisson1D, "fin": CoolingFin, "slab": Slab, "pellet": CatalystPellet,
            "advection": ConvectionDiffusion}


def build_problem(problem_cfg) -> Problem:
    if problem_cfg.name not in PROBLEMS:
        raise KeyError(f"unknown problem {problem_cfg.name!r} (known: {', '.join(PROBLEMS)})")
    params = {k: v for k, v in vars(problem_cfg).items() if k != "name"}
    return PROBLEMS[problem_cfg.name](**params)
