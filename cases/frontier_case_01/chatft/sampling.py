"""Generation: greedy or temperature / top-k sampling, one prompt or a left-padded batch."""

import torch

from chatft.template import tokenize_conversation


def filter_top_k(logits, k):
    if k <= 0 or k >= logits.size(-1):
        return logits
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]
    return logits.masked_fill(logits < kth, float("-inf"))


def next_token(logits, temperature=0.0, top_k=0, generator=None):
    """argmax when temperature is 0, else a draw from softmax(logits / temperature) over the top k."""
    if temperature <= 0:
        return logits.argmax(dim=-1)
    probs = torch.softmax(filter_top_k(logits, top_k) / temperature, dim=-1)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)


@torch.no_grad()
def generate(model, ids, max_new_tokens, stop_id=None, temperature=0.0, top_k=0, block_size=128, seed=0):
    was_training = model.training
    model.eval()
    g = torch.Generator().manual_seed(seed)
    ids = list(ids)
    try:
        for _ in range(max_new_tokens):
            x = torch.tensor([ids[-block_size:]])
            nxt = int(next_token(model(x)[0, -1], temperature, top_k, g))
            ids.append(nxt)
            if nxt == stop_id:
                break
    finally:
        model.train(was_training)
    return ids


def reply(model, tok, question, cfg, block_size):
    """The model's reply to one user turn, decoded, without the closing <|end|>."""
    prompt = tokenize_conversation([{"role": "user", "content": question}], tok, add_generation_prompt=True)
    out = generate(model, prompt["input_ids"], cfg.max_new_tokens, tok.end_id, cfg.temperature, cfg.top_k, block_size)
    new = out[len(prompt["input_ids"]):]
    if new and new[-1] == tok.end_id:
        new = new[:-1]
    return tok.decode(new)


def sequence_logprob(model, input_ids, attention_mask, labels):
    """Sum of the log-probabilities the model gives each supervised token, per row (for ranking replies)."""
    logits = model(input_ids, attention_mask)[:, :-1]
    targets = labels[:, 1:]
    logp = torch.log_softmax(logits, dim=-1)
    keep = targets != -100
    picked = logp.gather(-1, targets.clamp_min(0)[..., None]).squeeze(-1)
    return (picked * keep).sum(dim=-1)
