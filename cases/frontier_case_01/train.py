"""Supervised fine-tuning of a tiny chat model on synthetic string tasks.

    python train.py --config configs/mix.toml [--set section.key=value ...]

Without ``--config`` the defaults of ``chatft/config.py`` are used (``configs/base.toml`` spells them out).
"""

import argparse
import json
import math
import sys
import time
from pathlib import Path

import torch

from chatft.callbacks import default_callbacks
from chatft.config import describe, load_config, to_dict
from chatft.data import SFTDataset, batch_stream, make_collator, make_conversations
from chatft.data.tasks import parse_tasks
from chatft.export import export
from chatft.metrics import reply_loss_by_task
from chatft.models import build_model, count_parameters
from chatft.optim import build_optimizer, build_scheduler
from chatft.sampling import reply
from chatft.tokenizer import CharTokenizer
from chatft.trainer import Trainer


def build_data(cfg, tok):
    """The training set, the mixed held-out set, and one held-out set per task (for the final table).

    Training conversations are drawn to fit the context; the held-out sets are drawn as they come
    (and truncated if need be), so that they do not depend on ``data.block_size``.
    """
    tasks = parse_tasks(cfg.data.tasks)
    val_seed = cfg.train.seed + cfg.data.val_seed_offset
    train_convs = make_conversations(cfg.data.n_train, cfg.train.seed, tasks, cfg.data.max_turns,
                                     max_length=cfg.data.block_size)
    val_convs = make_conversations(cfg.data.n_val, val_seed, tasks, cfg.data.max_turns)
    train_set = SFTDataset(train_convs, tok, cfg.data.block_size)
    val_set = SFTDataset(val_convs, tok, cfg.data.block_size)
    per_task = {t: SFTDataset(make_conversations(cfg.data.n_val, val_seed + 1 + i, (t,), 1), tok, cfg.data.block_size)
                for i, t in enumerate(tasks)}
    return train_set, val_set, per_task


def format_task_table(losses):
    return " | ".join(f"{task} {loss:.3f}" for task, loss in losses.items())


def train(cfg):
    """Fine-tune with ``cfg``; returns (model, history)."""
    torch.manual_seed(cfg.train.seed)
    tok = CharTokenizer()
    train_set, val_set, per_task = build_data(cfg, tok)
    if train_set.truncated:
        print(f"warning: {train_set.truncated} training conversations longer than block_size "
              f"{cfg.data.block_size} were truncated")
    collate = make_collator(tok.pad_id, cfg.data)
    model = build_model(cfg.model, tok.vocab_size, cfg.data.block_size)
    if getattr(model, "needs_right_padding", False) and cfg.data.padding_side != "right":
        raise SystemExit(f"model {cfg.model.name!r} needs data.padding_side = 'right'")
    optimizer = build_optimizer(model, cfg.optim)
    scheduler = build_scheduler(optimizer, cfg.optim, cfg.train.steps)
    print(f"run {cfg.name}: model {cfg.model.name}, vocab {tok.vocab_size} (ln V = {math.log(tok.vocab_size):.3f}), "
          f"{count_parameters(model)} params, {len(train_set)} train conversations "
          f"({train_set.reply_tokens()} reply tokens), batch {cfg.train.grad_accum}x{cfg.data.batch_size}", flush=True)
    out_dir = Path(cfg.train.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "config.json").write_text(json.dumps(to_dict(cfg), indent=2))
    stream = batch_stream(train_set, cfg.data.batch_size, collate, cfg.train.seed,
                          cfg.train.grad_accum, cfg.data.group_by_length)
    trainer = Trainer(model, optimizer, scheduler, cfg, collate, default_callbacks(cfg))
    history = trainer.fit(stream, val_set)
    print(f"held-out reply loss by task: {format_task_table(reply_loss_by_task(model, per_task, collate))}")
    print(f"sample: {cfg.sample.prompt!r} -> {reply(model, tok, cfg.sample.prompt, cfg.sample, cfg.data.block_size)!r}")
    print(f"exported {export(model, tok, cfg)}")
    return model, history


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", help="TOML config file")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override one config value, e.g. --set optim.lr=1e-3 (repeatable)")
    parser.add_argument("--print-config", action="store_true", help="print the resolved config and exit")
    return parser.parse_args(argv)


def config_from_args(argv):
    """The run's Config from a command line: the ``--config`` file, then the ``--set`` overrides."""
    args = parse_args(argv)
    return load_config(args.config, args.overrides)


def main(argv):
    args = parse_args(argv)
    torch.set_num_threads(1)
    cfg = config_from_args(argv)
    if args.print_config:
        print(describe(cfg))
        return
    t0 = time.time()
    train(cfg)
    print(f"done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])
