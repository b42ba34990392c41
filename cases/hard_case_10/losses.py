"""The physics-informed objective: weighted equation residual plus boundary residual."""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class LossTerms:
    pde: torch.Tensor
    bc: torch.Tensor
    total: torch.Tensor

    def floats(self) -> dict:
        return {"loss": self.total.item(), "pde": self.pde.item(), "bc": self.bc.item()}


def reduce(squared: torch.Tensor, how: str) -> torch.Tensor:
    return squared.mean() if how == "mean" else squared.sum()


class PinnLoss:
    def __init__(self, problem, loss_cfg):
        self.problem = problem
        self.cfg = loss_cfg

    def __call__(self, model, x_col) -> LossTerms:
        residual = self.problem.residual(model, x_col)
        boundary = self.problem.boundary_residual(model)
        pde = reduce(residual.pow(2), self.cfg.reduction)
        bc = reduce(boundary.pow(2), self.cfg.reduction)
        return LossTerms(pde=pde, bc=bc, total=self.cfg.w_pde * pde + self.cfg.w_bc * bc)

