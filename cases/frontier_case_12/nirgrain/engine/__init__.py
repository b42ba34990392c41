"""Training engine: the epoch loops, the trainer and its callbacks."""
