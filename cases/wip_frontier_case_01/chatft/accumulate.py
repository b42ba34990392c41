"""Gradient accumulation: several micro-batches' backward passes per optimizer step.

``train.grad_accum`` micro-batches of ``data.batch_size`` conversations make one optimizer step,
so the effective batch is their product while only one micro-batch's activations are alive at a
time. Each micro-batch's loss is scaled by 1 / grad_accum before backward(): the gradients add up
in ``.grad``, and the scaling makes the sum the average over the window, so the learning rate
does not have to be retuned when grad_accum changes.
"""


class Accumulator:
    """Runs the scaled backward passes of one optimizer step and keeps the window's statistics."""

    def __init__(self, steps):
        if steps < 1:
            raise ValueError(f"train.grad_accum must be >= 1, got {steps}")
        self.steps = steps
        self.scale = 1.0 / steps
        self.reset()

    def reset(self):
        self.loss = 0.0
        self.micro_batches = 0
        self.tokens = 0
        self.targets = 0

    def backward(self, loss, batch, targets):
        """Adds one micro-batch's gradient; ``targets`` is how many tokens its loss supervised."""
        (loss * self.scale).backward()
        self.loss += loss.item() * self.scale
        self.micro_batches += 1
        self.tokens += int(batch["attention_mask"].sum())
        self.targets += targets

    @property
    def complete(self):
        return self.micro_batches == self.steps
