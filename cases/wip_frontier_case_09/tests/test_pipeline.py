import sys
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from batching import frame_mask, pad_batch, pad_stack  # noqa: E402
from calibration import counts_to_flux, tool_gain  # noqa: E402
from export import load_segments, read_manifest, split_runs  # noqa: E402
from model import FrameTagger  # noqa: E402


def test_pad_stack_shapes():
    out = pad_stack([torch.ones(3, 2), torch.ones(5, 2)])
    assert out.shape == (2, 5, 2)
    assert out[0, :3].eq(1).all()


def test_pad_batch_lengths():
    batch = [(torch.zeros(4, 6), torch.zeros(4, dtype=torch.long)),
             (torch.zeros(7, 6), torch.ones(7, dtype=torch.long))]
    x, y, lengths = pad_batch(batch)
    assert x.shape == (2, 7, 6) and y.shape == (2, 7)
    assert lengths.tolist() == [4, 7]
    assert frame_mask(lengths, 7).sum() == 11


def test_gain_at_reference_temperature():
    assert abs(tool_gain("MFL-B", 15.0) - 1.0) < 1e-12
    assert tool_gain("MFL-C", 25.0) > tool_gain("MFL-C", 5.0)


def test_counts_to_flux_per_unit_gain():
    counts = np.array([[84, 60, 72], [108, 66, 60]])
    flux = counts_to_flux(counts, np.array([60, 60, 60]), 1.0)
    assert flux.dtype == np.float32
    assert np.allclose(flux, [[1.0, 0.0, 0.5], [2.0, 0.25, 0.0]])
    assert np.allclose(counts_to_flux(counts, np.array([60, 60, 60]), 2.0), flux / 2)


def test_segments_match_manifest():
    manifest = read_manifest(ROOT / "data")
    segments = load_segments(ROOT / "data", manifest)
    assert len(segments) == len(manifest)
    assert {s.seg_id for s in segments} == {r["segment"] for r in manifest}
    frames = {r["segment"]: r["frames"] for r in manifest}
    assert all(len(s.tags) == frames[s.seg_id] == len(s.counts) for s in segments)
    train, val = split_runs(segments, "R2603,R2607")
    assert len(train) + len(val) == len(segments) and val


def test_tagger_keeps_frames():
    model = FrameTagger()
    assert model(torch.zeros(2, 37, 7)).shape == (2, 37, 5)
    assert np.isfinite(model(torch.randn(1, 5, 7)).detach().numpy()).all()
