"""The static inputs of a split, computed once per run and handed to the trainer and the evaluators.

A split's inputs are the spectral frames of each recording's window and the per-recording features
(``dsp.line_features``), repeated along the frames so that the model sees one (channels, frames)
array per recording. The store keeps both parts compact and gives back float32 arrays in the layout
the models take.
"""

import numpy as np


class FeatureStore:
    def __init__(self, frames, lines):
        if len(frames) != len(lines):
            raise ValueError(f"{len(frames)} windows but {len(lines)} rows of line features")
        self.frames = np.asarray(frames, dtype=np.float32)
        self.lines = np.asarray(lines, dtype=np.float32)

    def __len__(self):
        return len(self.frames)

    @property
    def n_channels(self):
        return self.frames.shape[1] + self.lines.shape[1]

    @property
    def nbytes(self):
        return self.frames.nbytes + self.lines.nbytes

    def inputs(self):
        """(n, bins + line features, frames), float32."""
        n, _, n_frames = self.frames.shape
        lines = np.broadcast_to(self.lines[:, :, None], (n, self.lines.shape[1], n_frames))
        return np.concatenate([self.frames, lines], axis=1).astype(np.float32)
