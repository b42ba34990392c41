"""Models: shapes, causality, and padding-side invariance of the GPT."""

import torch

from chatft.config import load_config
from chatft.data import Collator
from chatft.models import build_model
from chatft.template import tokenize_conversation
from chatft.tokenizer import CharTokenizer

TOK = CharTokenizer()


def gpt():
    torch.manual_seed(0)
    cfg = load_config(None, ["model.d_model=32", "model.n_layer=1"])
    return build_model(cfg.model, TOK.vocab_size, cfg.data.block_size).eval()


def test_logits_have_one_row_per_token():
    for name in ("gpt", "gru"):
        cfg = load_config(None, [f"model.name={name}", "model.d_model=16", "model.n_head=2"])
        model = build_model(cfg.model, TOK.vocab_size, cfg.data.block_size)
        assert model(torch.randint(4, TOK.vocab_size, (2, 7))).shape == (2, 7, TOK.vocab_size)


def test_gpt_is_causal():
    model = gpt()
    x = torch.randint(4, TOK.vocab_size, (1, 10))
    y = x.clone()
    y[0, 7:] = 5
    with torch.no_grad():
        assert torch.allclose(model(x)[0, :7], model(y)[0, :7], atol=1e-6)


def test_gpt_gives_the_same_logits_on_either_padding_side():
    model = gpt()
    examples = [tokenize_conversation([{"role": "user", "content": c}], TOK) for c in ("sort: a b", "count")]
    right, left = Collator(TOK.pad_id, "right")(examples), Collator(TOK.pad_id, "left")(examples)
    with torch.no_grad():
        lr, ll = model(right["input_ids"], right["attention_mask"]), model(left["input_ids"], left["attention_mask"])
    for row in range(2):
        a = lr[row][right["attention_mask"][row].bool()]
        b = ll[row][left["attention_mask"][row].bool()]
        assert torch.allclose(a, b, atol=1e-5)
