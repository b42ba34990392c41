"""ml-debug-bench: grade how an AI agent debugs a broken ML training repo."""

__version__ = "0.1.0"
