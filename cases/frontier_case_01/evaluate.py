"""Evaluate an exported model: held-out LM loss, exact-match replies and multiple-choice ranking.

    python evaluate.py runs/sft-sampling/model.pt [--n 50]

The multiple-choice score asks which of four candidate replies the model finds most likely
(summed log-probability of the reply tokens), which is less noisy than exact match early on.
"""

import argparse
import random
import sys

import torch

from chatft.data import ReplyCollator, SFTDataset, make_conversations
from chatft.data.tasks import TASKS
from chatft.export import load_exported
from chatft.metrics import exact_match, held_out_lm
from chatft.models import build_model
from chatft.sampling import sequence_logprob
from chatft.tokenizer import CharTokenizer


def multiple_choice(model, tok, conversations, collate, n_choices=4, seed=0):
    """Fraction of first turns whose true reply outranks n_choices - 1 replies to other questions."""
    rng = random.Random(seed)
    replies = [conv[1]["content"] for conv in conversations]
    correct = 0
    for conv in conversations:
        question, answer = conv[0]["content"], conv[1]["content"]
        others = rng.sample([r for r in replies if r != answer], n_choices - 1)
        candidates = [answer] + others
        examples = [SFTDataset([[{"role": "user", "content": question}, {"role": "assistant", "content": c}]],
                               tok, 10_000)[0] for c in candidates]
        batch = collate(examples)
        with torch.no_grad():
            scores = sequence_logprob(model, batch["input_ids"], batch["attention_mask"], batch["labels"])
        correct += int(scores.argmax()) == 0
    return correct / max(1, len(conversations))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model_path")
    parser.add_argument("--n", type=int, default=50, help="held-out conversations to score")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    tok = CharTokenizer()
    model, cfg = load_exported(args.model_path, build_model, tok)
    convs = make_conversations(args.n, args.seed, tuple(TASKS), cfg.data.max_turns)
    collate = ReplyCollator(tok.pad_id, cfg.data.padding_side)
    dataset = SFTDataset(convs, tok, cfg.data.block_size)
    print(f"{cfg.name}: held-out lm {held_out_lm(model, dataset, collate):.3f} | "
          f"exact match {exact_match(model, tok, convs, cfg.sample, cfg.data.block_size, limit=args.n):.2f} | "
          f"multiple choice {multiple_choice(model, tok, convs, collate):.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
