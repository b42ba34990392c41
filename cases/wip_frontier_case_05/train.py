"""Train a docking-demand model: `python train.py --config configs/dock.toml [--set key=value ...]`.

Loads the station exports, checks them, holds out the last weeks, encodes features, scales inputs
and targets, trains, and prints the held-out report per station.
"""

import argparse
import random
import time

import numpy as np
import torch

from callbacks import ConsoleLogger, EarlyStopping, History, JsonlWriter, LRScheduler
from checks import check_stations, check_weather
from config import load_config
from data import load_stations, split_holdout
from export import save_run
from features import build_table
from losses import build_loss
from metrics import bias, format_report, mae, station_report
from models import build_model, count_params
from optim import build_optimizer, build_scheduler
from preprocess import fit_scalers, row_weights
from trainer import Trainer


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def prepare(cfg, print_fn=print):
    stations = load_stations(cfg.data.data_dir, cfg.data.stations or None)
    if cfg.data.check:
        check_stations(stations, warn=print_fn)
        check_weather(stations, warn=print_fn)
    names = [st.name for st in stations]
    train_st, held_st = split_holdout(stations, cfg.data.holdout_weeks)
    train_t = build_table(train_st, names, cfg.features.harmonics, cfg.features.weather)
    held_t = build_table(held_st, names, cfg.features.harmonics, cfg.features.weather)
    train_t.weight = row_weights(train_st, cfg.train.half_life_weeks)
    return train_t, held_t


def to_tensors(table, xs, ys=None):
    x = torch.from_numpy(xs.transform(table.x))
    s = torch.from_numpy(table.station)
    if ys is None:
        return x, s
    return x, s, torch.from_numpy(ys.transform(table.y))


def predict_counts(trainer, table, xs, ys):
    x, s = to_tensors(table, xs)
    return np.clip(ys.inverse(trainer.predict(x, s)), 0.0, None)


def run(cfg, print_fn=print):
    seed_everything(cfg.train.seed)
    t0 = time.perf_counter()
    train_t, held_t = prepare(cfg, print_fn)
    xs, ys = fit_scalers(train_t, cfg)
    train_data = to_tensors(train_t, xs, ys) + (torch.from_numpy(train_t.weight),)

    model = build_model(cfg.model, train_t.x.shape[1], len(train_t.names))
    optimizer = build_optimizer(model, cfg.optim)
    history = History()
    callbacks = [history, ConsoleLogger(print_fn), EarlyStopping(cfg.train.patience)]
    if cfg.optim.schedule != "constant":
        callbacks.insert(0, LRScheduler(build_scheduler(optimizer, cfg.optim, cfg.train.epochs)))
    if cfg.train.out_dir:
        callbacks.append(JsonlWriter(f"{cfg.train.out_dir}/history.jsonl"))
    trainer = Trainer(model, optimizer, callbacks, grad_clip=cfg.optim.grad_clip,
                      loss_fn=build_loss(cfg.train.loss))

    def validate():
        pred = predict_counts(trainer, held_t, xs, ys)
        return {"val_mae": mae(held_t.y, pred), "val_bias": bias(held_t.y, pred)}

    steps = cfg.train.epochs * -(-len(train_t) // cfg.train.batch_size)
    print_fn(f"{cfg.name}: {cfg.model.name} ({count_params(model)} params), {len(train_t.names)} stations, "
             f"{len(train_t)} training hours, {steps} steps, {cfg.data.holdout_weeks} weeks held out")
    trainer.fit(train_data, cfg.train.epochs, cfg.train.batch_size, validate, seed=cfg.train.seed)

    report = station_report(held_t, predict_counts(trainer, held_t, xs, ys))
    print_fn(format_report(report))
    print_fn(f"done in {time.perf_counter() - t0:.1f}s")
    if cfg.train.out_dir:
        save_run(cfg, model, xs, ys, report)
    return {"model": model, "report": report, "history": history.rows,
            "input_scaler": xs, "target_scaler": ys}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="configs/dock.toml")
    ap.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    args = ap.parse_args(argv)
    run(load_config(args.config, args.set))


if __name__ == "__main__":
    main()
