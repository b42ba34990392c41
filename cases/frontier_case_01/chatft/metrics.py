"""Evaluation: held-out reply loss (overall and per task), full-text LM loss, exact-match replies."""

import math

import torch

from chatft.data.dataset import eval_batches
from chatft.losses import full_text_targets, lm_loss, supervised_tokens


@torch.no_grad()
def _token_weighted(model, dataset, collate, targets_of, batch_size):
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    try:
        for batch in eval_batches(dataset, batch_size, collate):
            targets = targets_of(batch)
            n = supervised_tokens(targets)
            total += lm_loss(model(batch["input_ids"], batch["attention_mask"]), targets).item() * n
            count += n
    finally:
        model.train(was_training)
    return total / count if count else math.nan


def held_out_reply(model, dataset, collate, batch_size=50):
    """Next-token loss over every reply token of ``dataset``, token-weighted, in eval mode."""
    return _token_weighted(model, dataset, collate, lambda b: b["labels"], batch_size)


def held_out_lm(model, dataset, collate, batch_size=50):
    """LM loss over every real token of ``dataset`` (prompts included), token-weighted, in eval mode."""
    return _token_weighted(model, dataset, collate, full_text_targets, batch_size)


def reply_loss_by_task(model, task_sets, collate):
    """{task: held-out reply loss} for a dict of one-task datasets."""
    return {task: held_out_reply(model, data, collate) for task, data in task_sets.items()}


def exact_match(model, tok, conversations, sample_cfg, block_size, limit=20):
    """Fraction of first-turn questions answered exactly (greedy), over the first ``limit`` conversations."""
    from chatft.sampling import reply

    hits = 0
    convs = conversations[:limit]
    for conv in convs:
        question, answer = conv[0]["content"], conv[1]["content"]
        hits += reply(model, tok, question, sample_cfg, block_size) == answer
    return hits / max(1, len(convs))


def perplexity(loss):
    return math.exp(loss) if math.isfinite(loss) and loss < 50 else float("inf")
