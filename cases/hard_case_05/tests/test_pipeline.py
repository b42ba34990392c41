import torch

from config import load_config
from corpus import build_corpus, normalise
from dataset import split_words, windows
from models import build_model
from tokenizer import CharTokenizer


def test_normalise_strips_accents_and_symbols():
    assert normalise(" Élodie-Ann ") == "elodieann"


def test_split_is_stable_when_sources_are_added():
    a = build_corpus(["syllables"], 500, seed=0)
    b = build_corpus(["syllables", "places"], 500, seed=0)
    val_a = set(split_words(a, 0.1)[1])
    val_b = set(split_words(b, 0.1)[1])
    assert val_a <= val_b


def test_windows_shift_the_context():
    tok = CharTokenizer.from_alphabet()
    x, y = windows(["ab"], tok, 3)
    assert x.tolist() == [[0, 0, 0], [0, 0, 1], [0, 1, 2]]
    assert y.tolist() == [1, 2, 0]


def test_every_model_maps_contexts_to_logits():
    tok = CharTokenizer.from_alphabet()
    for path, block in (("configs/base.toml", 3), ("configs/experiment.toml", 3), ("configs/wavenet.toml", 8)):
        cfg = load_config(path)
        model = build_model(cfg.model, tok.vocab_size, cfg.data.block_size)
        assert model(torch.zeros(5, block, dtype=torch.long)).shape == (5, tok.vocab_size)
