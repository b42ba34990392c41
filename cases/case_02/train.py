"""Supervised fine-tuning of a tiny chat model on synthetic string tasks.

Usage: python train.py [--key=value ...] (see Config).
"""

import math
import sys
import time
from dataclasses import dataclass, fields

import torch
import torch.nn.functional as F

from chat import tokenize_conversation
from data import IGNORE_INDEX, SFTDataset, collate, make_conversations
from model import TinyGPT
from tokenizer import CharTokenizer


@dataclass
class Config:
    seed: int = 0
    n_train: int = 1000
    n_val: int = 100
    batch_size: int = 16
    steps: int = 40
    lr: float = 3e-3
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    d_model: int = 64
    n_layer: int = 2
    n_head: int = 4
    log_every: int = 10


def parse_args(argv):
    cfg = Config()
    types = {f.name: f.type for f in fields(Config)}
    for arg in argv:
        key, _, value = arg.lstrip("-").partition("=")
        if key not in types:
            raise SystemExit(f"unknown option --{key}")
        setattr(cfg, key, (int if types[key] in (int, "int") else float)(value))
    return cfg


def lm_loss(logits, labels):
    """Token-level cross-entropy, averaged over the supervised positions of the batch."""
    logits, labels = logits[:, :-1], labels[:, 1:]
    nll = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1),
                          ignore_index=IGNORE_INDEX, reduction="sum")
    n_tokens = (labels != IGNORE_INDEX).sum()
    return nll / n_tokens.clamp(min=1)


def make_loader(dataset, batch_size, pad_id, seed, shuffle=True):
    g = torch.Generator().manual_seed(seed)
    return torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, generator=g,
                                       collate_fn=lambda ex: collate(ex, pad_id), drop_last=shuffle)


def forever(loader):
    while True:
        yield from loader


@torch.no_grad()
def eval_full_text(model, loader):
    """Held-out LM loss over whole conversations (prompts included), ignoring padding only."""
    model.eval()
    total, count = 0.0, 0
    for batch in loader:
        targets = batch["input_ids"].masked_fill(batch["attention_mask"] == 0, IGNORE_INDEX)
        logits = model(batch["input_ids"], batch["attention_mask"])
        n = (targets[:, 1:] != IGNORE_INDEX).sum().item()
        total += lm_loss(logits, targets).item() * n
        count += n
    model.train()
    return total / count


def grad_norm(model):
    return torch.norm(torch.stack([p.grad.norm() for p in model.parameters() if p.grad is not None])).item()


def sample_reply(model, tok, question):
    prompt = tokenize_conversation([{"role": "user", "content": question}], tok, add_generation_prompt=True)
    out = model.generate(prompt["input_ids"], max_new_tokens=20, stop_id=tok.end_id)
    return tok.decode(out[len(prompt["input_ids"]):])


def train(cfg):
    torch.manual_seed(cfg.seed)
    tok = CharTokenizer()
    train_set = SFTDataset(make_conversations(cfg.n_train, seed=cfg.seed), tok)
    val_set = SFTDataset(make_conversations(cfg.n_val, seed=cfg.seed + 1000), tok)
    train_loader = make_loader(train_set, cfg.batch_size, tok.pad_id, cfg.seed)
    val_loader = make_loader(val_set, 50, tok.pad_id, cfg.seed, shuffle=False)
    model = TinyGPT(tok.vocab_size, cfg.d_model, cfg.n_head, cfg.n_layer)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=cfg.lr, betas=(0.9, 0.95))
    print(f"vocab {tok.vocab_size} (ln V = {math.log(tok.vocab_size):.3f}), "
          f"{sum(p.numel() for p in model.parameters())} params, {len(train_set)} train conversations")
    print(f"sample before: {sample_reply(model, tok, 'reverse the word tiger')!r}")
    stream = forever(train_loader)
    history = []
    t0 = time.time()
    for step in range(cfg.steps + 1):
        batch = next(stream)
        logits = model(batch["input_ids"], batch["attention_mask"])
        loss = lm_loss(logits, batch["labels"])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        gnorm = grad_norm(model)
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        if step % cfg.log_every == 0 or step == cfg.steps:
            row = {"step": step, "loss": loss.item(), "grad_norm": gnorm,
                   "tokens": int(batch["attention_mask"].sum()), "shape": tuple(batch["input_ids"].shape)}
            if step % (2 * cfg.log_every) == 0 or step == cfg.steps:
                row["val_lm"] = eval_full_text(model, val_loader)
            history.append(row)
            val = f" | val lm {row['val_lm']:.3f}" if "val_lm" in row else ""
            print(f"step {step:4d} | loss {row['loss']:.4f} | grad norm {gnorm:.3f} | "
                  f"batch {row['shape'][0]}x{row['shape'][1]} ({row['tokens']} tokens){val}", flush=True)
        if step < cfg.steps:
            opt.step()
    print(f"sample after:  {sample_reply(model, tok, 'reverse the word tiger')!r}")
    print(f"{cfg.steps} steps in {time.time() - t0:.1f}s")
    return model, history


def main(argv):
    torch.set_num_threads(1)
    cfg = parse_args(argv)
    train(cfg)


if __name__ == "__main__":
    main(sys.argv[1:])
