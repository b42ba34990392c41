"""The masked SFT labels (case_02, hard_case_02): a collator whose padding flag is the attention
mask itself masks every label, so the SFT loss supervises nothing and nothing trains.

Both cases record the same things around the agent's training (the scalar every backward() gets,
every optimizer step) and compare the losses the README's run printed with those values. The reply
rule differs between the two cases' checks (case_02's labels come from its own reply_labels; the
hard case's next-token targets from ``reply_flags`` here), so each case keeps its own. ``reply_flags``,
``next_token_reply_targets`` and ``train_as_readme`` take the chat tokens and the README's arguments
as parameters, so any case built on the same chat template and trainer (frontier_case_01) can use them.
"""

from contextlib import contextmanager

from verifylib import import_workspace_module, require

IGNORE = -100

# --- measuring half (measure.py, beside the agent's code) ------------------------------------------


@contextmanager
def recording_steps():
    """While inside: the value of every scalar the training differentiates (each torch.autograd.backward
    call) and every optimizer step's (class name, learning rates). Yields the two lists it fills."""
    import torch
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    backward_values, steps = [], []
    backward = torch.autograd.backward

    def recording_backward(tensors, *args, **kwargs):
        t = tensors[0] if isinstance(tensors, (tuple, list)) else tensors
        if isinstance(t, torch.Tensor) and t.numel() == 1:
            backward_values.append(float(t.detach()))
        return backward(tensors, *args, **kwargs)

    def on_step(opt, args, kwargs):
        steps.append((type(opt).__name__, [g["lr"] for g in opt.param_groups]))

    torch.autograd.backward = recording_backward
    handle = register_optimizer_step_pre_hook(on_step)
    try:
        yield backward_values, steps
    finally:
        handle.remove()
        torch.autograd.backward = backward


def put_steps(rec, backward_values, steps, max_saved):
    """Record what ``recording_steps`` saw: the first ``max_saved`` backward values and the counts."""
    rec.put("backward_values", backward_values[:max_saved])
    rec.put("backward_calls", len(backward_values))
    rec.put("optimizer_steps", len(steps))
    rec.put("optimizers", sorted({kind for kind, _ in steps}))


def train_as_readme(readme_args, seed):
    """The agent's train.train on train.config_from_args(README arguments + ``--set train.seed=S``): the
    training exactly as the README runs it, with only the seed set. Returns the trained model."""
    train = import_workspace_module("train")
    config_from_args, train_fn = require(train, "config_from_args", "train")
    cfg = config_from_args(readme_args + ["--set", f"train.seed={seed}"])
    model, _ = train_fn(cfg)
    return model


# --- deciding half (decide.py; never imports the agent's code) ----------------------------------------


def reply_flags(ids, *, pad, user, assistant, end):
    """(B, T) bool: the tokens an assistant reply consists of (reply text and its closing ``end``), from
    the token ids alone: after an ``assistant`` header up to and including ``end``; a ``user`` header or
    padding ends a reply that has no ``end``."""
    import torch

    flags = torch.zeros_like(ids, dtype=torch.bool)
    for b, row in enumerate(ids.tolist()):
        inside = False
        for t, tok in enumerate(row):
            if tok == assistant:
                inside = True
            elif tok == user or tok == pad:
                inside = False
            elif inside:
                flags[b, t] = True
                if tok == end:
                    inside = False
    return flags


def next_token_reply_targets(ids, **tokens):
    """The flat targets a next-token loss over exactly the reply tokens gets: ids[:, 1:] where the token
    is part of a reply, IGNORE elsewhere. ``tokens``: pad, user, assistant, end (as ``reply_flags``)."""
    flags = reply_flags(ids, **tokens)[:, 1:]
    return ids[:, 1:].masked_fill(~flags, IGNORE).reshape(-1)


def measured_backward_values(measured, seed):
    """The backward values the measuring process recorded for ``seed`` ([] when that seed is not usable)."""
    m = measured.get(seed)
    return [float(v) for v in m.value("backward_values", list)] if m is not None else []
