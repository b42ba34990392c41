"""Physics-informed network for steady conduction through a thin slab.

Usage: python train.py [--key=value ...] (see Config).
"""

import sys
import time
from dataclasses import dataclass, fields

import torch

from model import TemperatureField
from problem import Slab


@dataclass
class Config:
    seed: int = 0
    L: float = 1e-3
    T_hot: float = 500.0
    T_cold: float = 300.0
    k: float = 50.0
    q: float = 0.0
    n_colloc: int = 32
    hidden: int = 20
    steps: int = 400
    lr: float = 5e-3
    w_pde: float = 1.0
    w_bc: float = 1.0
    log_every: int = 100


def parse_args(argv):
    cfg = Config()
    types = {f.name: f.type for f in fields(Config)}
    for arg in argv:
        key, _, value = arg.lstrip("-").partition("=")
        if key not in types:
            raise SystemExit(f"unknown option --{key}")
        setattr(cfg, key, (int if types[key] in (int, "int") else float)(value))
    return cfg


def second_derivative(u, x):
    du = torch.autograd.grad(u.sum(), x, create_graph=True)[0]
    return torch.autograd.grad(du.sum(), x, create_graph=True)[0]


def losses(model, slab, x_col):
    """PDE residual (W/m^3) on the collocation points and boundary error (K)."""
    x = x_col.clone().requires_grad_(True)
    T = model(x)
    residual = slab.k * second_derivative(T, x) + slab.q
    x_b, T_b = slab.boundary()
    loss_pde = residual.pow(2).mean()
    loss_bc = (model(x_b) - T_b).pow(2).mean()
    return loss_pde, loss_bc


@torch.no_grad()
def evaluate(model, slab, n=201):
    x = torch.linspace(0.0, slab.L, n, dtype=torch.float64).reshape(-1, 1)
    T, T_exact = model(x), slab.exact(x)
    x_b, T_b = slab.boundary()
    return {"bc_err": (model(x_b) - T_b).abs().flatten().tolist(),
            "rel_l2": ((T - T_exact).norm() / T_exact.norm()).item()}


def train(cfg):
    torch.manual_seed(cfg.seed)
    slab = Slab(cfg.L, cfg.T_hot, cfg.T_cold, cfg.k, cfg.q)
    model = TemperatureField(slab, cfg.hidden)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    x_col = slab.collocation(cfg.n_colloc)
    history = []
    for step in range(cfg.steps + 1):
        loss_pde, loss_bc = losses(model, slab, x_col)
        loss = cfg.w_pde * loss_pde + cfg.w_bc * loss_bc
        opt.zero_grad()
        loss.backward()
        if step % cfg.log_every == 0:
            ev = evaluate(model, slab)
            row = {"step": step, "loss": loss.item(), "pde": loss_pde.item(), "bc": loss_bc.item(), **ev}
            history.append(row)
            print(f"step {step:5d} | loss {row['loss']:.3e} | pde {row['pde']:.3e} | bc {row['bc']:.3e} | "
                  f"T(0) err {ev['bc_err'][0]:7.3f} K | T(L) err {ev['bc_err'][1]:7.3f} K | rel L2 {ev['rel_l2']:.2e}",
                  flush=True)
        if step < cfg.steps:
            opt.step()
    return model, history


def main(argv):
    torch.set_num_threads(1)
    cfg = parse_args(argv)
    t0 = time.time()
    train(cfg)
    print(f"done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])
