"""Template, tokenizer, collator and dataset on small hand-made conversations."""

import torch

from chatft.data import IGNORE_INDEX, Collator, ReplyCollator, SFTDataset, make_conversations
from chatft.data.collate import positions
from chatft.template import render, reply_spans, tokenize_conversation
from chatft.tokenizer import CharTokenizer

TOK = CharTokenizer()
CONV = [{"role": "user", "content": "reverse the word tiger"}, {"role": "assistant", "content": "regit"}]


def test_tokenizer_round_trip():
    text = render(CONV)
    assert TOK.decode(TOK.encode(text)) == text


def test_reply_mask_covers_reply_and_its_end_token():
    ex = tokenize_conversation(CONV, TOK)
    (start, end), = reply_spans(ex["reply_mask"])
    assert TOK.decode(ex["input_ids"][start:end]) == "regit<|end|>"
    assert ex["input_ids"][start - 1] == TOK.assistant_id


def test_generation_prompt_ends_with_assistant_header():
    ex = tokenize_conversation(CONV[:1], TOK, add_generation_prompt=True)
    assert ex["input_ids"][-1] == TOK.assistant_id and ex["reply_mask"][-1] == 0


def test_right_padding_labels_only_the_replies():
    examples = [tokenize_conversation(CONV, TOK), tokenize_conversation(CONV[:1] + [
        {"role": "assistant", "content": "r"}], TOK)]
    batch = ReplyCollator(TOK.pad_id, "right")(examples)
    labels, ids = batch["labels"], batch["input_ids"]
    for row, ex in enumerate(examples):
        for start, end in reply_spans(ex["reply_mask"]):
            assert torch.equal(labels[row, start:end], ids[row, start:end])
    assert (labels[batch["attention_mask"] == 0] == IGNORE_INDEX).all()
    assert int((labels != IGNORE_INDEX).sum()) == sum(sum(ex["reply_mask"]) for ex in examples)


def test_lm_labels_cover_every_real_token():
    examples = [tokenize_conversation(CONV, TOK), tokenize_conversation(CONV[:1], TOK)]
    batch = Collator(TOK.pad_id, "right")(examples)
    real = batch["attention_mask"].bool()
    assert torch.equal(batch["labels"][real], batch["input_ids"][real])
    assert (batch["labels"][~real] == IGNORE_INDEX).all()
    assert batch["num_targets"] == sum(len(ex["input_ids"]) - 1 for ex in examples)


def test_padding_sides_agree_on_the_tokens():
    examples = [tokenize_conversation(CONV, TOK), tokenize_conversation(CONV[:1], TOK)]
    right, left = Collator(TOK.pad_id, "right")(examples), Collator(TOK.pad_id, "left")(examples)
    for row in range(2):
        r = right["input_ids"][row][right["attention_mask"][row].bool()]
        lft = left["input_ids"][row][left["attention_mask"][row].bool()]
        assert torch.equal(r, lft)
    assert left["input_ids"][1, 0] == TOK.pad_id and left["input_ids"][1, -1] != TOK.pad_id


def test_positions_start_at_each_rows_first_token():
    mask = torch.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]])
    assert positions(mask).tolist() == [[0, 0, 0, 1, 2], [0, 1, 2, 3, 4]]


def test_long_conversations_are_truncated_and_counted():
    convs = make_conversations(200, seed=0, max_turns=2)
    data = SFTDataset(convs, TOK, block_size=64)
    assert data.truncated > 0
    assert all(len(ex["input_ids"]) <= 64 for ex in data.examples)


def test_training_draws_fit_the_context():
    convs = make_conversations(200, seed=0, max_length=72)
    assert len(convs) == 200
    assert all(len(tokenize_conversation(c, TOK)["input_ids"]) <= 72 for c in convs)
