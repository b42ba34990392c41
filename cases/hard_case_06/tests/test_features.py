import torch

from data import COLUMNS, iterate_batches, load_shards
from features import TargetScaler, encode, feature_names, n_features
from normalize import GlobalScaler


def test_encode_shapes_and_hour_circle():
    raw = torch.zeros(4, len(COLUMNS))
    raw[:, COLUMNS.index("hour")] = torch.tensor([0.0, 6.0, 12.0, 18.0])
    x = encode(raw)
    assert x.shape == (4, n_features()) == (4, len(feature_names()))
    sin, cos = x[:, COLUMNS.index("hour")], x[:, COLUMNS.index("hour") + 1]
    assert torch.allclose(sin ** 2 + cos ** 2, torch.ones(4))


def test_target_scaler_round_trip():
    y = torch.tensor([10.0, 20.0, 30.0])
    s = TargetScaler(y)
    assert torch.allclose(s.inverse(s.transform(y)), y)


def test_global_scaler_zero_mean():
    x = torch.randn(100, 3) * 5 + 2
    z = GlobalScaler(x)(x)
    assert z.mean(0).abs().max() < 1e-5


def test_batches_never_mix_buildings():
    shards = load_shards()
    rows = {s["name"]: {tuple(r) for r in s["x"].tolist()} for s in shards}
    for _, name, _, raw, _ in iterate_batches(shards, 64, seed=0, epochs=1):
        assert all(tuple(r) in rows[name] for r in raw.tolist())
