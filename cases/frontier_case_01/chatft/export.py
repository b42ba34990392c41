"""Export a fine-tuned model with what serving needs to reproduce its inputs: vocabulary and template."""

import json
from pathlib import Path

import torch

from chatft.config import to_dict
from chatft.template import ROLE_TOKENS


def export(model, tok, cfg, path=None):
    out_dir = Path(cfg.train.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = Path(path) if path else out_dir / "model.pt"
    torch.save({"model": model.state_dict(), "config": to_dict(cfg)}, path)
    card = {
        "name": cfg.name,
        "model": cfg.model.name,
        "vocab": tok.itos,
        "roles": ROLE_TOKENS,
        "end_token": tok.itos[tok.end_id],
        "padding_side": cfg.data.padding_side,
        "block_size": cfg.data.block_size,
    }
    (out_dir / "tokenizer.json").write_text(json.dumps(card, indent=2))
    return path


def load_exported(path, build_model, tok):
    """(model, config dict) from a file ``export`` wrote."""
    from chatft.config import from_dict

    blob = torch.load(path, weights_only=True)
    cfg = from_dict(blob["config"], str(path))
    model = build_model(cfg.model, tok.vocab_size, cfg.data.block_size)
    model.load_state_dict(blob["model"])
    return model.eval(), cfg
