"""case_04, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-c04-3fa792f25ef83546

Entry points: train.Config, train.train, model.GestureNet (constructed as GestureNet(n_channels,
n_classes, hidden, dropout), called as net(x, lengths)), data.make_dataset (replaced, in data and
in train, by this file's own copy of the case's generator). Per seed, one training at the README's
settings (Adam lr 3e-3, batch 32, 150 steps, hidden 32, dropout 0.1, eval batch 100), recording:

- every optimizer step (class, learning rates) and the values passed to backward (the training
  loss: the last 50, and by step) and the history train() returns (seed 0 is the README's run,
  whose printed rows the decider compares with them);
- the trained model's logits, in eval mode, for the 500 validation recordings (which the decider
  regenerates): each recording alone (batch of 1, no padding), in order in batches of 100 (the
  README's evaluation), and in a fixed shuffled order in batches of 37 (other neighbours, other
  padding);
- the training-mode forward of the same network without dropout (GestureNet(..., dropout=0.0)
  loaded with the trained weights) on a batch of 32 training recordings, and on the same batch
  with its rows permuted (BatchNorm's batch statistics do not depend on the order of the rows).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

PINNED = {"n_train": 2000, "n_val": 500, "hidden": 32, "dropout": 0.1, "batch_size": 32,
          "eval_batch_size": 100, "steps": 150, "lr": 3e-3, "log_every": 25}
N_CHANNELS, N_CLASSES, HOP = 6, 4, 4
MAX_BY_STEP = 500
VAL_SEED_OFFSET, SHUFFLE_SEED, SHUFFLED_BATCH, PERM_SEED, PERM_BATCH = 100, 77, 37, 55, 32


def make_recordings(labels, n_samples, g):
    import torch

    n, s_max = len(labels), int(n_samples.max())
    pos = torch.arange(s_max)[None, :].float()
    t = 2.0 * pos / (n_samples[:, None] - 1).float() - 1.0
    slope = torch.stack([1.0 - 2.0 * (labels // 2), 1.0 - 2.0 * (labels % 2)], dim=1).float()
    x = 0.8 * torch.randn(n, s_max, N_CHANNELS, generator=g)
    x[:, :, :2] += 1.5 * t[:, :, None] * slope[:, None, :]
    phase = torch.rand(n, 1, N_CHANNELS - 2, generator=g) * 6.28
    x[:, :, 2:] += torch.sin(6.0 * t[:, :, None] + phase)
    return x


def frame(raw, hop=HOP):
    n, s, c = raw.shape
    return raw[:, : s // hop * hop].reshape(n, s // hop, hop, c).mean(dim=2)


def make_dataset(n, seed=0, min_frames=12, max_frames=28):
    """The case's data.make_dataset, copied so the agent cannot change the data."""
    import torch

    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, N_CLASSES, (n,), generator=g)
    frames = torch.randint(min_frames, max_frames + 1, (n,), generator=g)
    x = frame(make_recordings(labels, frames * HOP, g))
    return [x[i, : int(f)].clone() for i, f in enumerate(frames)], labels


def collate(xs):
    import torch

    lengths = torch.tensor([len(x) for x in xs])
    out = torch.zeros(len(xs), int(lengths.max()), xs[0].shape[1])
    for i, x in enumerate(xs):
        out[i, : len(x)] = x
    return out, lengths


def logits_in_batches(net, xs, order, batch_size):
    """Logits of every recording, evaluated in batches of ``batch_size`` taken in ``order``; rows in input order."""
    import torch

    out = torch.empty(len(xs), N_CLASSES)
    for i in range(0, len(order), batch_size):
        idx = order[i:i + batch_size]
        out[idx] = net(*collate([xs[j] for j in idx])).float()
    return out


def measure(seed, rec):
    import torch
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    data = import_workspace_module("data")
    require(data, "make_dataset")
    model_mod = import_workspace_module("model")
    GestureNet = require(model_mod, "GestureNet")
    train = import_workspace_module("train")
    Config, train_fn = require(train, "Config", "train")

    steps, backward_values = [], []

    def on_step(opt, args, kwargs):
        steps.append((type(opt).__name__, [g["lr"] for g in opt.param_groups]))

    backward = torch.autograd.backward

    def recording_backward(tensors, *args, **kwargs):
        t = tensors[0] if isinstance(tensors, (tuple, list)) else tensors
        if isinstance(t, torch.Tensor) and t.numel() == 1:
            backward_values.append(float(t.detach()))
        return backward(tensors, *args, **kwargs)

    modules = [m for m in (data, train) if hasattr(m, "make_dataset")]
    originals = {m: m.make_dataset for m in modules}
    for m in modules:
        m.make_dataset = make_dataset
    torch.autograd.backward = recording_backward
    handle = register_optimizer_step_pre_hook(on_step)
    try:
        result = train_fn(Config(seed=seed, **PINNED))
    finally:
        handle.remove()
        torch.autograd.backward = backward
        for m, fn in originals.items():
            m.make_dataset = fn
    if not isinstance(result, tuple) or len(result) != 2:
        raise TypeError("train() must return (model, history)")
    model, history = result
    rec.put("optimizer_steps", len(steps))
    rec.put("optimizers", sorted({kind for kind, _ in steps}))
    rec.put("learning_rates", sorted({lr for _, lrs in steps for lr in lrs})[:10])
    rec.put("backward_values", backward_values[-50:])
    rec.put("backward_calls", len(backward_values))
    rec.put("backward_values_by_step", backward_values[:MAX_BY_STEP])
    rec.put("history", [{k: float(v) for k, v in h.items()} for h in history][:100]
            if isinstance(history, list) and all(isinstance(h, dict) for h in history) else str(history)[:200])

    xs_val, _ = make_dataset(PINNED["n_val"], seed=seed + VAL_SEED_OFFSET)
    n = len(xs_val)
    shuffled = torch.randperm(n, generator=torch.Generator().manual_seed(SHUFFLE_SEED + seed)).tolist()
    model.eval()
    with torch.no_grad():
        logits = {
            "alone": logits_in_batches(model, xs_val, list(range(n)), 1),
            "batch100": logits_in_batches(model, xs_val, list(range(n)), PINNED["eval_batch_size"]),
            "shuffled37": logits_in_batches(model, xs_val, shuffled, SHUFFLED_BATCH),
        }
    rec.save("logits", logits)

    xs_train, _ = make_dataset(PINNED["n_train"], seed=seed)
    g = torch.Generator().manual_seed(PERM_SEED + seed)
    rows = torch.randperm(len(xs_train), generator=g)[:PERM_BATCH].tolist()
    perm = torch.randperm(PERM_BATCH, generator=g)
    x, lengths = collate([xs_train[j] for j in rows])
    net = GestureNet(N_CHANNELS, N_CLASSES, PINNED["hidden"], 0.0)
    net.load_state_dict(model.state_dict())
    net.train()  # with gradients on, as in training
    rec.save("train_mode", {"out": net(x, lengths).float(), "out_permuted": net(x[perm], lengths[perm]).float(),
                            "perm": perm})


measure_main(measure)
