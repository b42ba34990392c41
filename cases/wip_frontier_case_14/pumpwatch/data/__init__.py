from .archive import CLASSES  # noqa: F401
from .pipeline import Split, Standardizer, build_splits  # noqa: F401
