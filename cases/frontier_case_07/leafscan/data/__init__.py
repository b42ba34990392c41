"""Data pipeline: synthetic scans -> static feature stages -> batched loaders with augmentation."""

from leafscan.data.pipeline import CLASSES, Datasets, build_datasets, rebuild_split

__all__ = ["CLASSES", "Datasets", "build_datasets", "rebuild_split"]
