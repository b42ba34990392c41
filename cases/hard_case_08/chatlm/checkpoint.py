"""Checkpoints: weights plus what is needed to rebuild the model and talk to it."""

from pathlib import Path

import torch

from chatlm.config import Config, apply_table
from chatlm.data.cache import fingerprint
from chatlm.models import build_model
from chatlm.templates import ChatTemplate
from chatlm.tokenizer import CharTokenizer


def run_fingerprint(cfg):
    """Names a run by its configuration, so two runs of the same config share a checkpoint path."""
    return fingerprint(cfg.to_dict())


def default_path(cfg):
    return Path("runs") / f"{cfg.name}-{run_fingerprint(cfg)}.pt"


def save(path, model, cfg, tok, step):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    template = ChatTemplate.load(cfg.data.template)
    torch.save({"model": model.state_dict(), "config": cfg.to_dict(), "step": step,
                "tokenizer": tok.config, "template": {"bos": template.bos, **{r: list(m) for r, m in template.markers.items()}},
                "template_fingerprint": template.fingerprint()}, path)
    return path


def load(path):
    """(model, tokenizer, template, config) from a checkpoint file."""
    ckpt = torch.load(path)
    cfg = Config()
    apply_table(cfg, ckpt["config"])
    tok = CharTokenizer(ckpt["tokenizer"])
    t = ckpt["template"]
    template = ChatTemplate(t["bos"], {r: tuple(t[r]) for r in ("system", "user", "assistant")})
    model = build_model(cfg, tok.vocab_size)
    model.load_state_dict(ckpt["model"])
    model.eval()
    return model, tok, template, cfg
