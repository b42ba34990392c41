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


def shuffled_batches(order, batch_size):
    """Consecutive slices of ``order``; an incomplete last slice is dropped."""
    return [order[s:s + batch_size] for s in range(0, len(order) - batch_size + 1, batch_size)]


def length_grouped_batches(order, lengths, batch_size, bucket_size, g):
    """Batches of similar length, in random order.

    The shuffled ``order`` is cut into buckets of ``bucket_size`` conversations; each bucket is
    sorted by length and sliced into batches, so a batch needs little padding. The batches of all
    buckets are then shuffled, so the stream does not run from short to long within a bucket.
    Every example still appears exactly once per epoch (minus each bucket's incomplete last batch).
    """
    batches = []
    for start in range(0, len(order), bucket_size):
        bucket = sorted(order[start:start + bucket_size], key=lambda i: lengths[i])
        batches += shuffled_batches(bucket, batch_size)
    perm = torch.randperm(len(batches), generator=g).tolist()
    return [batches[i] for i in perm]


def batch_stream(dataset, batch_size, collate, seed, group_by_length=False, bucket_size=128):
    """Endless batches, reshuffled every epoch (length-grouped when asked)."""
    g = torch.Generator().manual_seed(seed)
    lengths = dataset.lengths()
    while True:
        order = torch.randperm(len(dataset), generator=g).tolist()
        if group_by_length:
            batches = length_grouped_batches(order, lengths, batch_size, bucket_size, g)
        else:
            batches = shuffled_batches(order, batch_size)
        for idx in batches:
            yield collate([dataset[i] for i in idx])


def eval_batches(dataset, batch_size, collate):
    """The dataset once, in order, in batches (the last may be smaller)."""
    for start in range(0, len(dataset), batch_size):
        yield collate([dataset[i] for i in range(start, min(start + batch_size, len(dataset)))])
