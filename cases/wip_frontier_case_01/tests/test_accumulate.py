"""Gradient accumulation: a window of micro-batches must train like one batch of their union."""

import torch

from chatft.accumulate import Accumulator
from chatft.config import load_config
from chatft.data import Collator
from chatft.losses import lm_loss, supervised_tokens
from chatft.models import build_model
from chatft.template import tokenize_conversation
from chatft.tokenizer import CharTokenizer

TOK = CharTokenizer()
QUESTIONS = [("reverse the word tiger", "regit"), ("reverse the word lemon", "nomel"),
             ("reverse the word piano", "onaip"), ("reverse the word stone", "enots")]


def examples():
    return [tokenize_conversation([{"role": "user", "content": q}, {"role": "assistant", "content": a}], TOK)
            for q, a in QUESTIONS]


def model():
    torch.manual_seed(0)
    cfg = load_config(None, ["model.d_model=32", "model.n_layer=1"])
    return build_model(cfg.model, TOK.vocab_size, cfg.data.block_size)


def grads(m):
    return torch.cat([p.grad.reshape(-1) for p in m.parameters() if p.grad is not None])


def test_two_micro_batches_give_the_full_batch_gradient():
    collate = Collator(TOK.pad_id)
    full, parts = collate(examples()), [collate(examples()[:2]), collate(examples()[2:])]
    m = model()
    lm_loss(m(full["input_ids"], full["attention_mask"]), full["labels"]).backward()
    want = grads(m)
    m.zero_grad(set_to_none=True)
    acc = Accumulator(2)
    for batch in parts:
        acc.backward(lm_loss(m(batch["input_ids"], batch["attention_mask"]), batch["labels"]), batch,
                     supervised_tokens(batch["labels"]))
    assert acc.complete
    assert torch.allclose(grads(m), want, atol=1e-6)


def test_window_statistics_add_up():
    collate = Collator(TOK.pad_id)
    parts = [collate(examples()[:1]), collate(examples()[1:])]
    m = model()
    acc = Accumulator(2)
    for batch in parts:
        acc.backward(lm_loss(m(batch["input_ids"], batch["attention_mask"]), batch["labels"]), batch,
                     supervised_tokens(batch["labels"]))
    assert acc.targets == 4 * (5 + 1)  # five reply characters and the closing <|end|>, per conversation
    assert acc.tokens == sum(len(e["input_ids"]) for e in examples())


def test_accumulation_needs_at_least_one_step():
    try:
        Accumulator(0)
    except ValueError as exc:
        assert "grad_accum" in str(exc)
    else:
        raise AssertionError("Accumulator(0) was accepted")
