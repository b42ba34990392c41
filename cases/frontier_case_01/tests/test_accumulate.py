"""Gradient accumulation: a window of micro-batches must train like one batch of their union."""

import torch

from chatft.accumulate import Accumulator
from chatft.config import load_config
from chatft.data import Collator
from chatft.losses import lm_loss
from chatft.models import build_model
from chatft.template import tokenize_conversation
from chatft.tokenizer import CharTokenizer

TOK = CharTokenizer()
QUESTIONS = [("reverse the word tiger", "regit"), ("count: lemon piano", "2"),
             ("sort: stone apple", "apple stone"), ("say rocket 3 times", "rocket rocket rocket")]


def examples():
    return [tokenize_conversation([{"role": "user", "content": q}, {"role": "assistant", "content": a}], TOK)
            for q, a in QUESTIONS]


def model():
    torch.manual_seed(0)
    cfg = load_config(None, ["model.d_model=32", "model.n_layer=1"])
    return build_model(cfg.model, TOK.vocab_size, cfg.data.block_size)


def grads(m):
    return torch.cat([p.grad.reshape(-1) for p in m.parameters() if p.grad is not None])


def accumulate(m, parts):
    acc = Accumulator(m.parameters(), len(parts))
    for batch in parts:
        acc.backward(lm_loss(m(batch["input_ids"], batch["attention_mask"]), batch["labels"]), batch)
    return acc


def test_uneven_micro_batches_give_the_full_batch_gradient():
    """One conversation against three of different lengths: weighting by targets, not by micro-batch."""
    collate = Collator(TOK.pad_id)
    full, parts = collate(examples()), [collate(examples()[:1]), collate(examples()[1:])]
    m = model()
    loss = lm_loss(m(full["input_ids"], full["attention_mask"]), full["labels"])
    loss.backward()
    want = grads(m)
    m.zero_grad(set_to_none=True)
    acc = accumulate(m, parts)
    assert acc.complete
    assert torch.allclose(grads(m), want, atol=1e-6)
    assert abs(acc.loss - loss.item()) < 1e-5


def test_window_statistics_add_up():
    collate = Collator(TOK.pad_id)
    parts = [collate(examples()[:2]), collate(examples()[2:])]
    acc = accumulate(model(), parts)
    assert acc.targets == sum(len(e["input_ids"]) - 1 for e in examples())
    assert acc.tokens == sum(len(e["input_ids"]) for e in examples())


def test_accumulation_needs_at_least_one_step():
    try:
        Accumulator([], 0)
    except ValueError as exc:
        assert "grad_accum" in str(exc)
    else:
        raise AssertionError("Accumulator([], 0) was accepted")


def test_clipping_bounds_the_step_gradient():
    from chatft.callbacks import GradientClipping
    from chatft.trainer import Trainer

    collate = Collator(TOK.pad_id)
    parts = [collate(examples()[:2]), collate(examples()[2:])]
    m = model()
    cfg = load_config(None, ["train.grad_accum=2"])
    trainer = Trainer(m, torch.optim.SGD(m.parameters(), lr=0.0), None, cfg, collate, [GradientClipping(0.05)])
    trainer.train_step(parts)
    assert trainer.grad_norm > 0.05
    assert grads(m).norm() <= 0.05 + 1e-6
