import torch

from checks import check_sites
from data import COLUMNS, load_sites, split_holdout
from features import encode, feature_names, n_features


def test_export_passes_checks():
    check_sites(load_sites())


def test_holdout_is_the_last_week():
    sites = load_sites()
    train, holdout = split_holdout(sites, 7)
    for s, t, h in zip(sites, train, holdout):
        assert len(h["y"]) == 168 and len(t["y"]) + 168 == len(s["y"])
        assert torch.equal(h["y"], s["y"][-168:])


def test_encode_shapes_and_circles():
    raw = torch.zeros(4, len(COLUMNS))
    raw[:, COLUMNS.index("hour")] = torch.tensor([0.0, 6.0, 12.0, 18.0])
    raw[:, COLUMNS.index("weekday")] = torch.tensor([0.0, 2.0, 5.0, 6.0])
    x = encode(raw)
    assert x.shape == (4, n_features()) == (4, len(feature_names()))
    names = feature_names()
    sin, cos = x[:, names.index("hour_sin")], x[:, names.index("hour_cos")]
    assert torch.allclose(sin ** 2 + cos ** 2, torch.ones(4))
    assert x[:, names.index("weekend")].tolist() == [0.0, 0.0, 1.0, 1.0]
