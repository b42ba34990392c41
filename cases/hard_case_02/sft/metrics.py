"""Evaluation: held-out LM loss over whole conversations, reply loss, and exact-match replies."""

import math

import torch

from sft.data.dataset import eval_batches
from sft.losses import full_text_targets, lm_loss
from sft.sampling import reply


@torch.no_grad()
def held_out_lm(model, dataset, collate, batch_size=50):
    """LM loss over every real token of ``dataset`` (prompts included), token-weighted, in eval mode."""
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    try:
        for batch in eval_batches(dataset, batch_size, collate):
            targets = full_text_targets(batch)
            n = int((targets[:, 1:] != -100).sum())
            total += lm_loss(model(batch["input_ids"], batch["attention_mask"]), targets).item() * n
            count += n
    finally:
        model.train(was_training)
    return total / count


def exact_match(model, tok, conversations, sample_cfg, block_size, limit=20):
    """Fraction of first-turn questions answered exactly (greedy), over the first ``limit`` conversations."""
    hits = 0
    convs = conversations[:limit]
    for conv in convs:
        question, answer = conv[0]["content"], conv[1]["content"]
        hits += reply(model, tok, question, sample_cfg, block_size) == answer
    return hits / max(1, len(convs))


def perplexity(loss):
    return math.exp(loss) if math.isfinite(loss) and loss < 50 else float("inf")
