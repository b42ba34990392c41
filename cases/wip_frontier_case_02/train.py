"""Train CollarNet on the 2026 collar windows of all four farms.

    python train.py [--config configs/herd26.toml] [--set section.key=value ...]
"""

import argparse

import numpy as np

from callbacks import default_callbacks, seed_everything
from checks import check_table
from config import load_arch, load_config
from data import load_exports, split_by_cow
from dataset import Standardizer, model_inputs
from metrics import evaluate, macro_f1, per_class_f1
from models import build_collarnet
from sampling import build_eval_loader, build_train_loader
from trainer import Trainer


def run(cfg):
    seed_everything(cfg.train.seed)
    table = load_exports(cfg.data.export_dir)
    for problem in check_table(table):
        print(f"warning: {problem}")
    train_t, val_t = split_by_cow(table, cfg.data.val_fraction, cfg.data.split_seed)
    print(f"windows: {len(table):,} from {len(set(table.farms))} farms | train {len(train_t):,} "
          f"| val {len(val_t):,} (a quarter of each farm's cows)")

    x_train, _, _ = model_inputs(train_t)
    standardizer = Standardizer.fit(x_train)
    model = build_collarnet(x_train.shape[1], train_t.classes, load_arch(cfg.model.arch))

    train_loader = build_train_loader(train_t, standardizer, cfg.data, cfg.train.seed)
    val_loader = build_eval_loader(val_t, standardizer)
    trainer = Trainer(model, cfg, default_callbacks(cfg))
    trainer.setup(train_loader, val_loader, train_t.classes)
    trainer.fit()

    final = evaluate(model, val_loader, len(train_t.classes))
    f1 = per_class_f1(final["confusion"])
    print(f"kept epoch {trainer.kept_epoch} (lowest val loss)")
    print("val F1 by state: " + " | ".join(f"{c} {v:.3f}" for c, v in zip(train_t.classes, f1)))
    a = train_t.classes.index(cfg.train.alert_state)
    caught, total = int(final["confusion"][a, a]), int(final["confusion"][a].sum())
    raised = int(final["confusion"][:, a].sum())
    print(f"alert ({cfg.train.alert_state}): recall {caught / max(total, 1):.3f} | precision "
          f"{caught / max(raised, 1):.3f} | {total - caught} of {total} val windows missed")
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
