from textproc import Vocab, tokenize


def test_tokenize_keeps_speaker_tags_and_hyphens():
    assert tokenize("[Bot] Hello, two-factor CODE!") == ["[bot]", "hello", "two-factor", "code"]


def test_vocab_frequency_cut_and_unknowns():
    vocab = Vocab.build(["a b b c", "b c d"], min_count=2)
    assert vocab.itos[:2] == ["<pad>", "<unk>"]
    assert set(vocab.itos[2:]) == {"b", "c"}
    assert vocab.ids(["b", "zzz"]) == [vocab.stoi["b"], vocab.unk_id]


def test_encode_is_fixed_length():
    vocab = Vocab.build(["x y z"] * 3)
    ids, n = vocab.encode("x y", 5)
    assert len(ids) == 5 and n == 2 and ids[2:] == [0, 0, 0]
    ids, n = vocab.encode("x y z x y z x", 4)
    assert len(ids) == 4 and n == 4
