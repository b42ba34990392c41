"""Tokenized conversations, truncated to the model's context, and the endless shuffled batch stream."""

import torch

from sft.template import tokenize_conversation


class SFTDataset:
    """Tokenized conversations; anything past ``block_size`` tokens is cut off (and counted)."""

    def __init__(self, conversations, tok, block_size):
        self.examples = []
        self.truncated = 0
        for conv in conversations:
            ex = tokenize_conversation(conv, tok)
            if len(ex["input_ids"]) > block_size:
                self.truncated += 1
                ex = {k: v[:block_size] for k, v in ex.items()}
            self.examples.append(ex)

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, i):
        return self.examples[i]

    def reply_tokens(self):
        return sum(sum(ex["reply_mask"]) for ex in self.examples)


def batch_stream(dataset, batch_size, collate, seed):
    """Endless batches: reshuffled every epoch, incomplete last batch dropped."""
    g = torch.Generator().manual_seed(seed)
    while True:
        order = torch.randperm(len(dataset), generator=g).tolist()
        for start in range(0, len(order) - batch_size + 1, batch_size):
            yield collate([dataset[i] for i in order[start:start + batch_size]])


def eval_batches(dataset, batch_size, collate):
    """The dataset once, in order, in batches (the last may be smaller)."""
    for start in range(0, len(dataset), batch_size):
        yield collate([dataset[i] for i in range(start, min(start + batch_size, len(dataset)))])
