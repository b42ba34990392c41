"""Reply generation: greedy or temperature / top-k sampling, stopping at a stop token."""

import torch


@torch.no_grad()
def generate(model, prompt_ids, max_new_tokens, stop_ids=(), temperature=0.0, top_k=0, generator=None):
    """New token ids after ``prompt_ids``; temperature 0 is greedy."""
    was_training = model.training
    model.eval()
    ids, new = list(prompt_ids), []
    for _ in range(max_new_tokens):
        ctx = torch.tensor([ids[-model.block_size:]])
        logits = model(ctx)[0, -1]
        if temperature <= 0:
            nxt = int(logits.argmax())
        else:
            logits = logits / temperature
            if top_k > 0:
                kth = torch.topk(logits, min(top_k, logits.numel())).values[-1]
                logits = logits.masked_fill(logits < kth, float("-inf"))
            probs = torch.softmax(logits, dim=-1)
            nxt = int(torch.multinomial(probs, 1, generator=generator))
        if nxt in stop_ids:
            break
        ids.append(nxt)
        new.append(nxt)
    model.train(was_training)
    return new


@torch.no_grad()
def sequence_logprob(model, ids):
    """Sum of log-probabilities the model gives ``ids[1:]`` after ``ids[:-1]``."""
    x = torch.tensor([ids[:-1]])
    logp = torch.log_softmax(model(x)[0], dim=-1)
    return logp.gather(1, torch.tensor(ids[1:]).unsqueeze(1)).sum().item()
