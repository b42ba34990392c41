"""Supervised fine-tuning of tiny character-level chat models on synthetic instruction data."""

__version__ = "0.3.0"
