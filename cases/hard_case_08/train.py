"""Fine-tune a small character-level chat model on assistant replies.

    python train.py --config configs/sft.toml [--set optim.lr=1e-3 --set seed=1 ...]
"""

import argparse
import math
import sys
import time

import torch

from chatlm.config import load_config
from chatlm.data.batching import truncated
from chatlm.data.dataset import prepare_data
from chatlm.engine.callbacks import default_callbacks
from chatlm.engine.evaluator import Evaluator
from chatlm.engine.trainer import Trainer
from chatlm.models import build_model, count_parameters
from chatlm.templates import IGNORE


def make_config(path=None, overrides=()):
    """The run's configuration: a config file (or the built-in defaults) plus --set overrides."""
    return load_config(path, overrides)


def load_training_data(cfg):
    """The tokenizer and the tokenized training chats for ``cfg``."""
    data = prepare_data(cfg)
    if not data.examples:
        raise SystemExit(f"{cfg.data.train}: no training conversations")
    return data


def run(cfg, echo=True):
    """Train with ``cfg``; returns the trainer (model, history, sample)."""
    torch.manual_seed(cfg.seed)
    data = load_training_data(cfg)
    tok = data.tokenizer
    model = build_model(cfg, tok.vocab_size)
    stats = data.stats()
    say = print if echo else (lambda *a, **k: None)
    say(f"run {cfg.name} (seed {cfg.seed}) | model {cfg.model.name}, {count_parameters(model):,} parameters | "
        f"tokenizer {tok.vocab_size} symbols, add_bos={bool(tok.config.get('add_bos'))} add_eos={bool(tok.config.get('add_eos'))}")
    say(f"train: {stats['chats']} chats, {stats['tokens']} tokens, {stats['trained']} trained")
    n_cut = truncated(data.examples, cfg.data.max_len)
    if n_cut:
        say(f"warning: {n_cut} chats cut at data.max_len={cfg.data.max_len}")
    ids, labels = data.examples[0]
    say(f"first sample ({len(ids)} tokens, {sum(l != IGNORE for l in labels)} trained): {tok.decode(ids)!r}")
    trainer = Trainer(cfg, model, data, Evaluator(cfg, tok), default_callbacks(cfg), echo=echo)
    trainer.fit()
    return trainer


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=None, help="a TOML file under configs/ (defaults: built-in)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override one config value, e.g. --set optim.lr=1e-3 (repeatable)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    cfg = make_config(args.config, args.overrides)
    t0 = time.time()
    trainer = run(cfg)
    print(f"done in {time.time() - t0:.1f}s (ln V = {math.log(trainer.tok.vocab_size):.2f})")


if __name__ == "__main__":
    main(sys.argv[1:])
