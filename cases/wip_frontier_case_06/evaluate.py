"""Evaluate a saved router checkpoint on a ticket export: python evaluate.py --config C --set train.out_dir=D [FILE]"""

import sys

import torch

from config import cli_config
from dataset import QUEUES, TicketSet, read_tickets
from metrics import format_report, summarize
from model import build_model
from textproc import Vocab


def load_router(cfg, path):
    state = torch.load(path, map_location="cpu")
    vocab = Vocab(state["itos"][2:])
    model = build_model(cfg.model, len(vocab), len(QUEUES), cfg.data.max_len, state["model"]["act_proj.weight"].shape[1])
    model.load_state_dict(state["model"])
    model.eval()
    return model, vocab


@torch.no_grad()
def evaluate_file(cfg, model, vocab, path):
    ds = TicketSet(read_tickets(path), vocab, cfg.data.max_len, cfg.data.lowercase)
    logits = model(ds.ids, ds.lengths, ds.activity)
    return summarize(logits.argmax(-1), ds.labels, QUEUES)


def main(argv=None):
    torch.set_num_threads(1)
    cfg, rest = cli_config(argv, "evaluate a trained router")
    if not cfg.train.out_dir:
        raise SystemExit("set train.out_dir to the folder holding router.pt")
    model, vocab = load_router(cfg, f"{cfg.train.out_dir}/router.pt")
    path = rest[0] if rest else cfg.data.val_path
    print(format_report(evaluate_file(cfg, model, vocab, path)))


if __name__ == "__main__":
    main(sys.argv[1:])
