"""Gradient accumulation: several micro-batches' backward passes per optimizer step.

``train.grad_accum`` micro-batches of ``data.batch_size`` conversations make one optimizer step,
so the effective batch is their product while only one micro-batch's activations are alive at a
time. The loss of a micro-batch is the mean over its own supervised tokens, and micro-batches
supervise different numbers of tokens, so scaling each by 1 / grad_accum would weight
micro-batches rather than tokens. Each is weighted by its share of the window's targets instead:
the gradients that add up in ``.grad`` are then the token mean over the whole window, the same
as one batch of all its conversations, and the learning rate does not depend on grad_accum.
"""


class Accumulator:
    """Runs the weighted backward passes of one optimizer step and keeps the window's statistics."""

    def __init__(self, steps):
        if steps < 1:
            raise ValueError(f"train.grad_accum must be >= 1, got {steps}")
        self.steps = steps
        self.reset([])

    def reset(self, window):
        """Starts a window (its micro-batches, as the collator returned them)."""
        self.window_targets = sum(batch["num_targets"] for batch in window)
        self.loss = 0.0
        self.micro_batches = 0
        self.tokens = 0

    def backward(self, loss, batch):
        """Adds one micro-batch's gradient, weighted by its share of the window's targets."""
        share = batch["num_targets"] / max(1, self.window_targets)
        (loss * share).backward()
        self.loss += loss.item() * share
        self.micro_batches += 1
        self.tokens += int(batch["attention_mask"].sum())

    @property
    def complete(self):
        return self.micro_batches == self.steps
