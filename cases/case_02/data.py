"""Synthetic instruction data (small string tasks) and the SFT collator."""

import random

import torch

from chat import tokenize_conversation

IGNORE_INDEX = -100
WORDS = ("apple river stone cloud tiger lemon piano rocket garden silver candle "
         "forest window monkey pepper castle dragon yellow orange planet").split()


def _task(rng):
    kind = rng.choice(["reverse", "upper", "count", "first", "sort"])
    words = rng.sample(WORDS, rng.randint(2, 3))
    if kind == "reverse":
        w = words[0]
        return f"reverse the word {w}", w[::-1]
    if kind == "upper":
        return f"spell {words[0]} with dashes", "-".join(words[0])
    if kind == "count":
        return f"how many words: {' '.join(words)}?", str(len(words))
    if kind == "first":
        return f"first letters of {' '.join(words)}", "".join(w[0] for w in words)
    return f"sort: {' '.join(words)}", " ".join(sorted(words))


def make_conversations(n, seed=0, max_turns=2):
    rng = random.Random(seed)
    convs = []
    for _ in range(n):
        msgs = []
        for _ in range(rng.randint(1, max_turns)):
            q, a = _task(rng)
            msgs += [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
        convs.append(msgs)
    return convs


class SFTDataset(torch.utils.data.Dataset):
    def __init__(self, conversations, tok):
        self.examples = [tokenize_conversation(c, tok) for c in conversations]

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, i):
        return self.examples[i]


def collate(examples, pad_id):
    """Right-pad a list of tokenized conversations into a batch of tensors."""
    T = max(len(e["input_ids"]) for e in examples)
    input_ids = torch.full((len(examples), T), pad_id, dtype=torch.long)
    reply_mask = torch.zeros((len(examples), T), dtype=torch.long)
    attention_mask = torch.zeros((len(examples), T), dtype=torch.long)
    for i, e in enumerate(examples):
        n = len(e["input_ids"])
        input_ids[i, :n] = torch.tensor(e["input_ids"])
        reply_mask[i, :n] = torch.tensor(e["reply_mask"])
        attention_mask[i, :n] = 1
    pad = attention_mask.bool()
    labels = input_ids.masked_fill(pad | (reply_mask == 0), IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
