"""Gradient accumulation: ``train.grad_accum`` micro-batches' backward passes per optimizer step.

The micro-batches of a step are streamed: each is collated, run forward and backward, and
dropped before the next, so only one micro-batch's activations are alive at a time and the
effective batch is ``data.batch_size * train.grad_accum``. After every backward pass ``.grad``
holds the running mean over the targets seen so far in the step (the previous mean is rescaled
by its share), so nothing about the micro-batches still to come has to be known in advance.
"""


class Accumulator:
    """Running-mean gradient and loss over one optimizer step's micro-batches, and their statistics."""

    def __init__(self, parameters, steps):
        if steps < 1:
            raise ValueError(f"train.grad_accum must be >= 1, got {steps}")
        self.parameters = list(parameters)
        self.steps = steps
        self.reset()

    def reset(self):
        """Starts a step: no targets seen, no gradient kept."""
        self.targets = 0
        self.loss = 0.0
        self.micro_batches = 0
        self.rows = 0
        self.tokens = 0

    def backward(self, loss, batch):
        """Folds one micro-batch's mean loss and its gradient into the step's running means."""
        seen = self.targets + batch["num_targets"]
        kept, share = self.targets / max(1, seen), batch["num_targets"] / max(1, seen)
        if self.targets:
            for p in self.parameters:
                if p.grad is not None:
                    p.grad.mul_(kept)
        (loss * share).backward()
        self.loss = self.loss * kept + loss.item() * share
        self.targets = seen
        self.micro_batches += 1
        self.rows = batch["input_ids"].size(0)
        self.tokens += int(batch["attention_mask"].sum())

    @property
    def complete(self):
        return self.micro_batches == self.steps
