"""Tokenized conversations, truncated to the model's context, and the endless shuffled batch stream."""

import torch

from chatft.template import tokenize_conversation


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

    def lengths(self):
        return [len(ex["input_ids"]) for ex in self.examples]


def step_batches(order, lengths, batch_size, grad_accum, group_by_length):
    """Micro-batches, ``grad_accum`` per optimizer step, as lists of dataset indices.

    A step's ``batch_size * grad_accum`` conversations are drawn first (consecutive slices of the
    shuffled ``order``; an incomplete last step is dropped) and only then cut into micro-batches,
    so the effective batch is the same set of conversations however it is split. With
    ``group_by_length`` each step's conversations are sorted by length, longest first, before the
    cut: every micro-batch holds similar lengths and pads little, and a step that does not fit in
    memory fails on its first micro-batch.
    """
    span = batch_size * grad_accum
    batches = []
    for start in range(0, len(order) - span + 1, span):
        step = order[start:start + span]
        if group_by_length:
            step = sorted(step, key=lambda i: lengths[i], reverse=True)
        batches += [step[s:s + batch_size] for s in range(0, span, batch_size)]
    return batches


def batch_stream(dataset, batch_size, collate, seed, grad_accum=1, group_by_length=False):
    """Endless micro-batches, reshuffled every epoch; every ``grad_accum`` of them make one step."""
    g = torch.Generator().manual_seed(seed)
    lengths = dataset.lengths()
    while True:
        order = torch.randperm(len(dataset), generator=g).tolist()
        for idx in step_batches(order, lengths, batch_size, grad_accum, group_by_length):
            yield collate([dataset[i] for i in idx])


def eval_batches(dataset, batch_size, collate):
    """The dataset once, in order, in batches (the last may be smaller)."""
    for start in range(0, len(dataset), batch_size):
        yield collate([dataset[i] for i in range(start, min(start + batch_size, len(dataset)))])
