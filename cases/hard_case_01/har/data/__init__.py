"""The data pipeline: synthetic recordings -> standardized windows -> augmented, balanced batches."""

from har.data.loader import BatchStream, DataSplits, build_splits
from har.data.synth import ACTIVITIES, make_recordings
from har.data.transforms import Augment, Standardizer

__all__ = ["ACTIVITIES", "Augment", "BatchStream", "DataSplits", "Standardizer", "build_splits", "make_recordings"]
