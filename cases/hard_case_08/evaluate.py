"""Score a checkpoint on held-out chats, rendered with the template it was trained with or the
current one in templates/ (they differ after a template change).

    python evaluate.py runs/sft-chat-<fingerprint>.pt [--data data/val.jsonl] [--template current|checkpoint]
"""

import argparse
import sys

import torch

from chatlm import checkpoint
from chatlm.data.batching import collate
from chatlm.data.sources import load_conversations
from chatlm.metrics import lm_loss, mean_confidence, perplexity, stop_rate, token_accuracy
from chatlm.templates import ChatTemplate


@torch.no_grad()
def evaluate(path, data=None, which="current"):
    model, tok, saved_template, cfg = checkpoint.load(path)
    template = ChatTemplate.load(cfg.data.template) if which == "current" else saved_template
    conversations = load_conversations(data or cfg.data.val, cfg.data.min_reply_chars)
    x, y = collate([template.encode(m, tok, cfg.data.max_len) for m in conversations], tok.pad_id)
    logits = model(x)
    loss = lm_loss(logits, y).item()
    return {"chats": len(conversations), "loss": loss, "ppl": perplexity(loss), "acc": token_accuracy(logits, y),
            "stop": stop_rate(logits, y, tok.eos_id), "confidence": mean_confidence(logits, y),
            "template": template.fingerprint()}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint")
    parser.add_argument("--data", default=None)
    parser.add_argument("--template", choices=("current", "checkpoint"), default="current")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    r = evaluate(args.checkpoint, args.data, args.template)
    print(f"{r['chats']} chats | reply loss {r['loss']:.4f} (ppl {r['ppl']:.2f}) | token acc {r['acc']:.3f} | "
          f"stop {r['stop']:.2f} | confidence {r['confidence']:.2f} | template {r['template']}")


if __name__ == "__main__":
    main(sys.argv[1:])
