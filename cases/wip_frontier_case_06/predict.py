"""Route tickets with a saved router: python predict.py --config C --set train.out_dir=D "text" ...

With no text arguments, reads one ticket per line from standard input. Prints the queue and its probability."""

import sys

import torch

from config import cli_config
from dataset import QUEUES
from evaluate import load_router


@torch.no_grad()
def route(model, vocab, texts, max_len, lowercase=True, top=2):
    encoded = [vocab.encode(t, max_len, lowercase) for t in texts]
    ids = torch.tensor([e[0] for e in encoded], dtype=torch.long)
    lengths = torch.tensor([max(e[1], 1) for e in encoded], dtype=torch.long)
    probs = torch.softmax(model(ids, lengths), dim=-1)
    values, idx = probs.topk(top, dim=-1)
    return [[(QUEUES[int(i)], float(v)) for v, i in zip(vs, ix)] for vs, ix in zip(values, idx)]


def main(argv=None):
    torch.set_num_threads(1)
    cfg, texts = cli_config(argv, "route tickets")
    if not cfg.train.out_dir:
        raise SystemExit("set train.out_dir to the folder holding router.pt")
    model, vocab = load_router(cfg, f"{cfg.train.out_dir}/router.pt")
    if not texts:
        texts = [line.strip() for line in sys.stdin if line.strip()]
    for text, ranked in zip(texts, route(model, vocab, texts, cfg.data.max_len, cfg.data.lowercase)):
        shown = ", ".join(f"{q} {p:.2f}" for q, p in ranked)
        print(f"{shown} | {text[:60]}")


if __name__ == "__main__":
    main(sys.argv[1:])
