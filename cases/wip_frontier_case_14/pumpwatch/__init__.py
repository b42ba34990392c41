"""pumpwatch: fault classification of pump vibration recordings."""

__version__ = "0.4.1"
