
from baseline import BagOfEmbeddings
from compare_runs import compare
from inspect_data import telling_words
from sweep import parse_grid


def test_parse_grid():
    assert parse_grid(["optim.lr=1e-3,3e-3"]) == [[("optim.lr", "1e-3"), ("optim.lr", "3e-3")]]


def test_telling_words_prefers_specific_words():
    rows = [{"queue": "billing", "text": "invoice please"}] * 5 + [{"queue": "shipping", "text": "parcel please"}] * 5
    words = telling_words(rows, top=1, min_count=1)
    assert words["billing"][0][1] == "invoice"


def test_compare_reports_differences():
    a = {"accuracy": 0.5, "macro_f1": 0.4, "recall": {"billing": 0.5}}
    b = {"accuracy": 0.6, "macro_f1": 0.5, "recall": {"billing": 0.7}}
    assert "+0.200" in compare(a, b)


def test_baseline_forward():
    import torch

    model = BagOfEmbeddings(20, 8, 4, 16, 16)
    out = model(torch.randint(1, 20, (2, 6)), torch.tensor([3, 6]), torch.full((2, 4), 0.25))
    assert out.shape == (2, 8)
