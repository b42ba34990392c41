import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from batching import build_loader, frame_mask  # noqa: E402
from features import Standardizer, frame_features  # noqa: E402
from metrics import f1s, rare_recall, recalls  # noqa: E402
from model import FrameTagger  # noqa: E402


def test_frame_features_delta():
    f = frame_features(np.array([[1.0, 2.0, 3.0, 10.0], [2.0, 2.0, 1.0, 12.5], [2.0, 3.0, 1.0, 15.0]]))
    assert f.shape == (3, 7)
    assert f[:, :3].tolist() == [[1.0, 2.0, 3.0], [2.0, 2.0, 1.0], [2.0, 3.0, 1.0]]
    assert f[1, 3:].tolist() == [1.0, 0.0, -2.0, 2.5]
    assert f[0, 3:].tolist() == f[1, 3:].tolist()
    assert f[2, 3:].tolist() == [0.0, 1.0, 0.0, 2.5]


def test_standardizer_fit():
    arrays = [np.random.default_rng(0).normal(3.0, 2.0, (500, 7)).astype(np.float32)]
    z = Standardizer.fit(arrays)(arrays[0])
    assert abs(z.mean()) < 1e-5 and abs(z.std() - 1) < 1e-3


def test_loader_keeps_every_segment():
    data = [(torch.zeros(n, 7), torch.zeros(n, dtype=torch.long)) for n in (3, 9, 5, 7, 2)]
    seen = sum(int(lengths.sum()) for _, _, lengths in build_loader(data, 2, shuffle=True, seed=1))
    assert seen == 26


def test_mask_and_metrics():
    assert frame_mask(torch.tensor([1, 3]), 3).tolist() == [[True, False, False], [True, True, True]]
    conf = np.array([[8, 0, 0, 0], [0, 2, 0, 0], [1, 0, 3, 0], [0, 0, 0, 4]])
    assert recalls(conf)[2] == 0.75
    assert rare_recall(conf, (2, 3)) == 0.875
    assert np.all(f1s(conf) <= 1)


def test_receptive_field_is_local():
    torch.manual_seed(0)
    model = FrameTagger(dropout=0.0).eval()
    x = torch.randn(1, 120, 7)
    y = x.clone()
    y[0, 100:] += 5.0
    assert torch.allclose(model(x)[0, :60], model(y)[0, :60])
