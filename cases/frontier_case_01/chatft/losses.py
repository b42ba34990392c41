"""Token-level losses. Labels are aligned with the inputs; the shift happens here."""

import torch.nn.functional as F

from chatft.data.collate import IGNORE_INDEX


def lm_loss(logits, labels):
    """Next-token cross-entropy averaged over the supervised positions of the batch."""
    logits, labels = logits[:, :-1], labels[:, 1:]
    nll = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1),
                          ignore_index=IGNORE_INDEX, reduction="sum")
    n_tokens = (labels != IGNORE_INDEX).sum()
    return nll / n_tokens.clamp(min=1)


def full_text_targets(batch):
    """Every real token as a target (prompts included), padding ignored: the held-out LM loss's labels."""
    return batch["input_ids"].masked_fill(batch["attention_mask"] == 0, IGNORE_INDEX)


def supervised_tokens(labels):
    return int((labels[:, 1:] != IGNORE_INDEX).sum())
