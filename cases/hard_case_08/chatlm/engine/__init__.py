"""Training engine: the evaluator, the trainer and its callbacks."""
