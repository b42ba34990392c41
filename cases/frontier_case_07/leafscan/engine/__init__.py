"""Training engine: the step loop, the trainer and its callbacks."""
