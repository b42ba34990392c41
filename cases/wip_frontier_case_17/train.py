"""Fine-tune the 2025 WheelNet on the 2026 passes over the four detector sites.

    python train.py [--config configs/fleet26.toml] [--set section.key=value ...]
"""

import argparse

import numpy as np

from callbacks import default_callbacks, seed_everything
from checks import check_table, input_drift
from config import load_config
from data import load_exports, split_by_wagon
from dataset import Standardizer
from metrics import macro_f1, per_class_f1
from models import load_pretrained
from sampling import build_eval_loader, build_train_loader
from trainer import Trainer


def run(cfg):
    seed_everything(cfg.train.seed)
    table = load_exports(cfg.data.export_dir)
    for problem in check_table(table):
        print(f"warning: {problem}")
    train_t, val_t = split_by_wagon(table, cfg.data.val_fraction, cfg.data.split_seed)
    print(f"passes: {len(table):,} from {len(set(table.sites))} sites | train {len(train_t):,} "
          f"({len(set(train_t.wagons))} wagons) | val {len(val_t):,} ({len(set(val_t.wagons))} wagons)")

    m = cfg.model
    model, (mean, std) = load_pretrained(m.pretrained, m.hidden, m.width, m.dropout, m.init_std)
    standardizer = Standardizer(mean, std)
    drift = input_drift(train_t, standardizer)
    if drift:
        print(f"input check: {len(drift)} inputs off the 2025 statistics: "
              + ", ".join(f"{n} {s:+.2f} sd" for n, s in drift))

    train_loader = build_train_loader(train_t, standardizer, cfg.data, cfg.train.seed)
    val_loader = build_eval_loader(val_t, standardizer)
    trainer = Trainer(model, cfg, default_callbacks(cfg))
    trainer.setup(train_loader, val_loader, train_t.classes)
    trainer.fit()

    final = trainer.history[-1]
    f1 = per_class_f1(final["confusion"])
    print("val F1 by condition: " + " | ".join(f"{c} {v:.3f}" for c, v in zip(train_t.classes, f1)))
    sites = val_loader.dataset.sites
    print("val acc by site: " + " | ".join(
        f"{s} {(final['preds'][sites == s] == final['targets'][sites == s]).mean():.3f}" for s in sorted(set(sites))))
    a = train_t.classes.index(cfg.train.alarm_state)
    caught, total = int(final["confusion"][a, a]), int(final["confusion"][a].sum())
    raised = int(final["confusion"][:, a].sum())
    print(f"alarm ({cfg.train.alarm_state}): recall {caught / max(total, 1):.3f} | precision "
          f"{caught / max(raised, 1):.3f} | {total - caught} of {total} val passes missed")
    print(f"final: val acc {final['acc']:.4f} | balanced acc {final['bal_acc']:.4f} "
          f"| macro F1 {macro_f1(final['confusion']):.4f}")
    return trainer


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/fleet26.toml")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    args = parser.parse_args(argv)
    run(load_config(args.config, args.set))


if __name__ == "__main__":
    np.set_printoptions(precision=3, suppress=True)
    main()
