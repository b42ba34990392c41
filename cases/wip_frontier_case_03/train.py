"""Train HerdNet on the farms' collar exports.

    python train.py [--config configs/herd26.toml] [--set section.key=value ...]
"""

import argparse

import numpy as np

from augment import CollarAugment
from callbacks import default_callbacks, seed_everything
from checks import check_table
from config import load_config
from data import load_exports, split_by_cow
from dataset import Scaler, build_eval_loader, build_train_loader
from metrics import macro_f1, per_class_f1
from models import HerdNet
from trainer import Trainer


def run(cfg):
    seed_everything(cfg.train.seed)
    table = load_exports(cfg.data.export_dir)
    for problem in check_table(table):
        print(f"check: {problem}")
    train_t, val_t = split_by_cow(table, cfg.data.val_fraction, cfg.data.split_seed)
    print(f"windows: {len(table):,} from {len(set(table.farms))} farms | train {len(train_t):,} "
          f"| val {len(val_t):,}")

    scaler = Scaler.fit_table(train_t)
    a = cfg.augment
    train_loader = build_train_loader(train_t, scaler, cfg.data, cfg.train.seed,
                                      CollarAugment(a.gain_sd, a.noise_sd, a.dropout))
    val_loader = build_eval_loader(val_t, scaler)
    model = HerdNet(scaler.n_inputs, table.classes, cfg.model.hidden, cfg.model.dropout)
    trainer = Trainer(model, cfg, default_callbacks(cfg))
    trainer.setup(train_loader, val_loader, table.classes)
    trainer.fit()

    final = trainer.history[-1]
    f1 = per_class_f1(final["confusion"])
    print("val F1 by state: " + " | ".join(f"{c} {v:.3f}" for c, v in zip(table.classes, f1)))
    k = table.classes.index(cfg.train.alarm_state)
    caught, total = int(final["confusion"][k, k]), int(final["confusion"][k].sum())
    print(f"alert ({cfg.train.alarm_state}): recall {caught / max(total, 1):.3f} | "
          f"{total - caught} of {total} val windows missed")
    print(f"final: val acc {final['acc']:.4f} | balanced acc {final['bal_acc']:.4f} "
          f"| macro F1 {macro_f1(final['confusion']):.4f}")
    return trainer


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/herd26.toml")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    args = parser.parse_args(argv)
    run(load_config(args.config, args.set))


if __name__ == "__main__":
    np.set_printoptions(precision=3, suppress=True)
    main()
