"""Training and validation examples: one inspection segment each, standardized frame features and tags."""

import torch
from torch.utils.data import Dataset

from features import frame_features


class SegmentDataset(Dataset):
    def __init__(self, readings, tags, standardizer, seg_ids=None):
        if not len(readings) == len(tags):
            raise ValueError(f"{len(readings)} traces but {len(tags)} tag sequences")
        self.seg_ids = list(seg_ids) if seg_ids is not None else [str(i) for i in range(len(readings))]
        self.x = [torch.from_numpy(standardizer(frame_features(r))) for r in readings]
        self.y = [torch.as_tensor(t, dtype=torch.long) for t in tags]
        for i, (x, y) in enumerate(zip(self.x, self.y)):
            if len(x) != len(y):
                raise ValueError(f"{self.seg_ids[i]}: {len(x)} frames but {len(y)} tags")

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def frames(self):
        return sum(len(y) for y in self.y)
