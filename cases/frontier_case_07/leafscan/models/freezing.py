"""Freezing part of a model, for linear probing a pretrained encoder before fine-tuning it.

A frozen part gets no gradients and keeps the BatchNorm statistics it was trained with: it stays
in eval mode whenever the rest of the model trains."""


def freeze(module):
    for p in module.parameters():
        p.requires_grad_(False)
    module.eval()
    return module


def unfreeze(module):
    for p in module.parameters():
        p.requires_grad_(True)
    module.train()
    return module


def is_frozen(module):
    return all(not p.requires_grad for p in module.parameters())


def trainable_parameters(model):
    return [p for p in model.parameters() if p.requires_grad]


def set_training(model, mode=True):
    """``model.train(mode)`` that leaves frozen parts in eval mode."""
    for module in model.modules():
        module.train(mode and not is_frozen(module))
    return model


def describe_freezing(model):
    parts = [name for name, child in model.named_children() if is_frozen(child)]
    return "frozen: " + (", ".join(parts) if parts else "none")
