from .pipeline import Split, Standardizer, build_splits  # noqa: F401
from .synth import CLASSES, LOGGERS  # noqa: F401
