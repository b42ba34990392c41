"""Data pipeline: synthetic recordings -> static feature stages -> batched loaders with augmentation."""

from nirgrain.data.pipeline import CLASSES, Datasets, build_datasets, rebuild_split

__all__ = ["CLASSES", "Datasets", "build_datasets", "rebuild_split"]
