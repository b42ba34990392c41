"""Route the tickets of an export with a saved router: python predict.py --config C --set train.out_dir=D FILE

Prints each ticket's id, its two likeliest queues with their probabilities, and the start of its text."""

import sys

import torch

from config import cli_config
from dataset import QUEUES, TicketSet, read_tickets
from evaluate import load_router


@torch.no_grad()
def route(model, ds, top=2):
    probs = torch.softmax(model(ds.ids, ds.lengths, ds.activity), dim=-1)
    values, idx = probs.topk(top, dim=-1)
    return [[(QUEUES[int(i)], float(v)) for v, i in zip(vs, ix)] for vs, ix in zip(values, idx)]


def main(argv=None):
    torch.set_num_threads(1)
    cfg, rest = cli_config(argv, "route tickets")
    if not cfg.train.out_dir or len(rest) != 1:
        raise SystemExit("usage: predict.py --config C --set train.out_dir=D FILE")
    model, vocab = load_router(cfg, f"{cfg.train.out_dir}/router.pt")
    ds = TicketSet(read_tickets(rest[0]), vocab, cfg.data.max_len, cfg.data.lowercase)
    for record, ranked in zip(ds.records, route(model, ds)):
        shown = ", ".join(f"{q} {p:.2f}" for q, p in ranked)
        print(f"{record['id']} {shown} | {record['text'][:60]}")


if __name__ == "__main__":
    main(sys.argv[1:])
