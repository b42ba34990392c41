"""Pad tokenized conversations into batches and build the training labels.

Right padding is what training has always used. Left padding puts every conversation's last
token in the final column, which batched generation needs (all rows continue from the same
position), so the sampling experiments train with it too and keep one collator for both.

``Collator`` is the plain language-model collator: the labels are the input ids on every real
token and IGNORE_INDEX on padding (the loss shifts them by one position itself). Chat SFT trains
on the assistant's replies only: ``chatft.data.completion.ReplyCollator``.

Every batch also carries ``num_targets``, the number of positions its labels supervise (after
the shift), which the trainer's window statistics use.
"""

import torch

IGNORE_INDEX = -100


def count_targets(labels):
    """Supervised positions of a label tensor, after the one-position shift the loss applies."""
    return int((labels[:, 1:] != IGNORE_INDEX).sum())


def _right(examples, pad_id):
    T = max(len(e["input_ids"]) for e in examples)
    input_ids = torch.full((len(examples), T), pad_id, dtype=torch.long)
    reply_mask = torch.zeros((len(examples), T), dtype=torch.long)
    attention_mask = torch.zeros((len(examples), T), dtype=torch.long)
    for i, e in enumerate(examples):
        n = len(e["input_ids"])
        input_ids[i, :n] = torch.tensor(e["input_ids"])
        reply_mask[i, :n] = torch.tensor(e["reply_mask"])
        attention_mask[i, :n] = 1
    return input_ids, attention_mask, reply_mask


def _left(examples, pad_id):
    T = max(len(e["input_ids"]) for e in examples)
    input_ids = torch.full((len(examples), T), pad_id, dtype=torch.long)
    reply_mask = torch.zeros((len(examples), T), dtype=torch.long)
    attention_mask = torch.zeros((len(examples), T), dtype=torch.long)
    for i, e in enumerate(examples):
        n = len(e["input_ids"])
        input_ids[i, T - n:] = torch.tensor(e["input_ids"])
        reply_mask[i, T - n:] = torch.tensor(e["reply_mask"])
        attention_mask[i, T - n:] = 1
    return input_ids, attention_mask, reply_mask


class Collator:
    def __init__(self, pad_id, padding_side="right"):
        if padding_side not in ("right", "left"):
            raise ValueError(f"padding_side must be 'right' or 'left', not {padding_side!r}")
        self.pad_id = pad_id
        self.padding_side = padding_side

    def __call__(self, examples):
        pad = _left if self.padding_side == "left" else _right
        input_ids, attention_mask, reply_mask = pad(examples, self.pad_id)
        labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
        return {"input_ids": input_ids, "attention_mask": attention_mask, "reply_mask": reply_mask,
                "labels": labels, "num_targets": count_targets(labels)}


def positions(attention_mask):
    """Position index of every token counted from its row's first real token (0 on padding)."""
    return (attention_mask.cumsum(dim=-1) - 1).clamp_min(0) * attention_mask
