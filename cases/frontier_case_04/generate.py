"""Sample bouts from a saved model: a quick look at what it learned of a bird's song.

    python generate.py runs/x --bird Y03 --context directed --n 5
"""

import argparse

import torch

from config import load_config
from corpus import N_FEATS
from evaluate import load_model
from train import load_corpus
from vocab import CONTEXTS


@torch.no_grad()
def sample(model, vocab, bird, context, length, temperature=1.0, generator=None):
    ids = vocab.encode(bird, context, ())
    allowed = torch.zeros(vocab.size, dtype=torch.bool)
    allowed[1:1 + vocab.n_syllables] = True
    for _ in range(length):
        x = torch.tensor([ids[-model.max_len:]])
        logits = model(x, torch.zeros(*x.shape, N_FEATS))[0, -1] / max(temperature, 1e-6)
        logits = logits.masked_fill(~allowed, float("-inf"))
        ids.append(int(torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)))
    return vocab.decode(ids[2:])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--bird", required=True)
    parser.add_argument("--context", choices=CONTEXTS, default="undirected")
    parser.add_argument("--n", type=int, default=5)
    parser.add_argument("--length", type=int, default=12)
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--config", default="configs/spring26.toml")
    args = parser.parse_args(argv)
    cfg = load_config(args.config)
    vocab, _, _ = load_corpus(cfg)
    if args.bird not in vocab.bird_id:
        raise SystemExit(f"unknown bird {args.bird!r}; known: {', '.join(vocab.birds)}")
    model = load_model(args.run_dir, cfg, vocab)
    g = torch.Generator().manual_seed(args.seed)
    for _ in range(args.n):
        print(sample(model, vocab, args.bird, args.context, args.length, args.temperature, g))


if __name__ == "__main__":
    main()
