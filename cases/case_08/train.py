"""Fine-tune a tiny character LM on chat data. Usage: python train.py [--key=value ...] (see Config)."""

import math
import sys
import time
from dataclasses import dataclass, fields

import torch
import torch.nn.functional as F

from dataprep import IGNORE, encode_conversation, generation_prompt, load_examples, load_template, read_jsonl
from model import CharLM
from tokenizer import CharTokenizer


@dataclass
class Config:
    seed: int = 0
    train_data: str = "data/train.jsonl"
    val_data: str = "data/val.jsonl"
    tokenizer: str = "tokenizer.json"
    template: str = "templates/chat.json"
    cache_dir: str = "cache/tok"
    overwrite_cache: int = 0
    max_len: int = 128
    d_model: int = 48
    n_layer: int = 1
    n_head: int = 4
    batch_size: int = 8
    steps: int = 80
    lr: float = 5e-3
    log_every: int = 20
    sample_tokens: int = 40


def parse_args(argv):
    cfg = Config()
    types = {f.name: f.type for f in fields(Config)}
    for arg in argv:
        key, _, value = arg.lstrip("-").partition("=")
        if key not in types:
            raise SystemExit(f"unknown option --{key}")
        kind = {"int": int, "float": float, "str": str}.get(getattr(types[key], "__name__", types[key]), str)
        setattr(cfg, key, kind(value))
    return cfg


def prepare_data(cfg):
    """Tokenizer, tokenized training examples and the cache entry they came from."""
    tok = CharTokenizer.from_file(cfg.tokenizer)
    examples, entry = load_examples(cfg.train_data, cfg.template, tok, cfg.max_len, cfg.cache_dir,
                                    overwrite_cache=bool(cfg.overwrite_cache))
    return tok, examples, entry


def collate(examples, pad_id):
    """Right-pad a batch; inputs are ids[:-1], targets labels[1:], padding never trained on."""
    width = max(len(ids) for ids, _ in examples)
    x = torch.full((len(examples), width - 1), pad_id, dtype=torch.long)
    y = torch.full((len(examples), width - 1), IGNORE, dtype=torch.long)
    for row, (ids, labels) in enumerate(examples):
        n = len(ids) - 1
        x[row, :n] = torch.tensor(ids[:-1])
        y[row, :n] = torch.tensor(labels[1:])
    return x, y


def lm_loss(model, x, y):
    logits = model(x)
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1), ignore_index=IGNORE)


@torch.no_grad()
def evaluate(model, tok, cfg):
    """Reply loss on held-out chats, rendered on the fly the same way the chat server formats requests."""
    template = load_template(cfg.template)
    val = [encode_conversation(row["messages"], tok, template, cfg.max_len) for row in read_jsonl(cfg.val_data)]
    x, y = collate(val, tok.pad_id)
    return lm_loss(model, x, y).item()


def train(cfg):
    torch.manual_seed(cfg.seed)
    tok, examples, entry = prepare_data(cfg)
    ids, labels = examples[0]
    n_sup = sum(l != IGNORE for l in labels)
    print(f"train: {len(examples)} chats [{entry}]")
    print(f"first sample ({len(ids)} tokens, {n_sup} trained): {tok.decode(ids)!r}")
    model = CharLM(tok.vocab_size, cfg.d_model, cfg.n_layer, cfg.n_head, cfg.max_len)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    g = torch.Generator().manual_seed(cfg.seed)
    history = []
    for step in range(cfg.steps + 1):
        idx = torch.randint(0, len(examples), (cfg.batch_size,), generator=g).tolist()
        x, y = collate([examples[i] for i in idx], tok.pad_id)
        loss = lm_loss(model, x, y)
        if step % cfg.log_every == 0:
            row = {"step": step, "loss": loss.item(), "val_loss": evaluate(model, tok, cfg)}
            history.append(row)
            print(f"step {step:4d} | train loss {row['loss']:.4f} | val loss {row['val_loss']:.4f}", flush=True)
        if step < cfg.steps:
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model, tok, history


def sample(model, tok, cfg):
    chat = read_jsonl(cfg.val_data)[0]["messages"]
    prompt = generation_prompt([m for m in chat if m["role"] != "assistant"], tok, load_template(cfg.template))
    return tok.decode(model.generate(prompt, cfg.sample_tokens, stop_id=tok.eos_id))


def main(argv):
    torch.set_num_threads(1)
    cfg = parse_args(argv)
    t0 = time.time()
    model, tok, history = train(cfg)
    print(f"sample reply: {sample(model, tok, cfg)!r}")
    print(f"done in {time.time() - t0:.1f}s (ln V = {math.log(tok.vocab_size):.2f})")


if __name__ == "__main__":
    main(sys.argv[1:])
