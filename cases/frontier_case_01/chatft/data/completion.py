"""Completion-only batches for chat SFT: the loss sees the assistant's replies, not the prompts.

The user turns and the role headers are context the model conditions on; training on them
would spend capacity on reproducing questions. ``ReplyCollator`` pads exactly like ``Collator``
and then keeps the labels on reply tokens only (the reply text and its closing <|end|>, as the
chat template's reply mask marks them).
"""

from chatft.data.collate import IGNORE_INDEX, Collator


class ReplyCollator(Collator):
    def __call__(self, examples):
        batch = super().__call__(examples)
        batch["labels"] = batch["labels"].masked_fill(batch["reply_mask"] == 0, IGNORE_INDEX)
        return batch


def make_collator(pad_id, data_cfg):
    """The collator ``data.train_on`` asks for: "reply" (chat SFT) or "all" (every token)."""
    if data_cfg.train_on == "reply":
        return ReplyCollator(pad_id, data_cfg.padding_side)
    if data_cfg.train_on == "all":
        return Collator(pad_id, data_cfg.padding_side)
    raise ValueError(f"data.train_on must be 'reply' or 'all', not {data_cfg.train_on!r}")
