from .convnet import PlainConvNet, SEConvNet


def build_model(cfg, n_bins, n_classes):
    m = cfg.model
    if m.name == "seconv":
        return SEConvNet(n_bins, n_classes, width=m.width, blocks=m.blocks, kernel=m.kernel,
                         gate_dropout=m.gate_dropout, pool_dropout=m.pool_dropout,
                         head_dropout=m.head_dropout, pool=m.pool)
    if m.name == "plain":
        return PlainConvNet(n_bins, n_classes, width=m.width, kernel=m.kernel, head_dropout=m.head_dropout)
    raise ValueError(f"unknown model '{m.name}' (known: seconv, plain)")


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
