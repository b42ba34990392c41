"""hard_case_04, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-h04-41c2906345c38ee6

Entry points: config.load_config (called with no file and the README's configuration as overrides,
so the experiment is pinned whatever configs/ now says), train.run_experiment(cfg) -> (model,
history rows), models.build_model(model_cfg, n_channels, n_classes), synth.make_dataset (replaced,
in every loaded module that imported it, by this file's own copy of the case's generator). Per
seed, one training at the README's configuration (configs/recurrent.toml: GRU, AdamW lr 3e-3
warmup 10 + cosine, batch 32 bucketed, jitter 0.05, scale 0.1, clip 0.25, 150 steps, eval batch
100), recording:

- every optimizer step (class, learning rate of the first group) and the values passed to backward
  (the training loss: the last 50, and by step) and the history run_experiment returns (seed 0 is
  the README's run, whose printed rows the decider compares with them);
- the trained model's state_dict (the decider rebuilds the case's GRU model from it);
- the trained model's logits, in eval mode, for the 500 validation recordings (which the decider
  regenerates): each recording alone (batch of 1, no padding), in order in batches of 100 (the
  README's evaluation), and in a fixed shuffled order in batches of 37;
- the training-mode forward of a model built by build_model with dropout 0 and loaded with the
  trained weights, on a batch of 32 training recordings and on the same batch with its rows
  permuted.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

README_CONFIG = {
    "name": '"gru-jitter"',
    "data.n_train": 2000, "data.n_val": 500, "data.min_frames": 12, "data.max_frames": 28,
    "data.jitter": 0.05, "data.scale_range": 0.1, "data.bucket_by_length": "true",
    "model.kind": '"gru"', "model.hidden": 32, "model.dropout": 0.1, "model.layers": 1, "model.pool": '"mean"',
    "optim.name": '"adamw"', "optim.lr": 3e-3, "optim.weight_decay": 1e-4, "optim.warmup_steps": 10,
    "optim.schedule": '"cosine"', "optim.clip_norm": 0.25, "optim.steps": 150, "optim.batch_size": 32,
    "eval.batch_size": 100, "eval.every": 25,
}
N_CHANNELS, N_CLASSES, HOP = 6, 4, 4
N_TRAIN, N_VAL, HIDDEN = 2000, 500, 32
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
    """The case's synth.make_dataset, copied so the agent cannot change the data."""
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

    synth = import_workspace_module("synth")
    require(synth, "make_dataset")
    config = import_workspace_module("config")
    load_config = require(config, "load_config")
    models = import_workspace_module("models")
    build_model = require(models, "build_model")
    train = import_workspace_module("train")
    run_experiment = require(train, "run_experiment")

    overrides = [f"{k}={v}" for k, v in README_CONFIG.items()] + [f"seed={seed}"]
    cfg = load_config(None, overrides)

    steps, backward_values = [], []

    def on_step(opt, args, kwargs):
        steps.append((type(opt).__name__, float(opt.param_groups[0]["lr"])))

    backward = torch.autograd.backward

    def recording_backward(tensors, *args, **kwargs):
        t = tensors[0] if isinstance(tensors, (tuple, list)) else tensors
        if isinstance(t, torch.Tensor) and t.numel() == 1:
            backward_values.append(float(t.detach()))
        return backward(tensors, *args, **kwargs)

    ws = str(Path.cwd().resolve())  # measure_main runs in the workspace
    modules = [m for m in list(sys.modules.values())
               if str(getattr(m, "__file__", None) or "").startswith(ws + "/")
               and getattr(m, "make_dataset", None) is synth.make_dataset]
    originals = {m: m.make_dataset for m in modules}
    for m in modules:
        m.make_dataset = make_dataset
    torch.autograd.backward = recording_backward
    handle = register_optimizer_step_pre_hook(on_step)
    try:
        result = run_experiment(cfg)
    finally:
        handle.remove()
        torch.autograd.backward = backward
        for m, fn in originals.items():
            m.make_dataset = fn
    if not isinstance(result, tuple) or len(result) != 2:
        raise TypeError("run_experiment() must return (model, history rows)")
    model, history = result
    rec.put("optimizer_steps", len(steps))
    rec.put("optimizers", sorted({kind for kind, _ in steps}))
    rec.put("lr_by_step", [lr for _, lr in steps][:MAX_BY_STEP])
    rec.put("backward_values", backward_values[-50:])
    rec.put("backward_calls", len(backward_values))
    rec.put("backward_values_by_step", backward_values[:MAX_BY_STEP])
    rec.put("history", [{k: float(v) for k, v in h.items() if isinstance(v, (int, float))} for h in history][:100]
            if isinstance(history, list) and all(isinstance(h, dict) for h in history) else str(history)[:200])
    rec.save("state", model.state_dict())

    xs_val, _ = make_dataset(N_VAL, seed=seed + VAL_SEED_OFFSET)
    n = len(xs_val)
    shuffled = torch.randperm(n, generator=torch.Generator().manual_seed(SHUFFLE_SEED + seed)).tolist()
    model.eval()
    with torch.no_grad():
        logits = {
            "alone": logits_in_batches(model, xs_val, list(range(n)), 1),
            "batch100": logits_in_batches(model, xs_val, list(range(n)), 100),
            "shuffled37": logits_in_batches(model, xs_val, shuffled, SHUFFLED_BATCH),
        }
    rec.save("logits", logits)

    xs_train, _ = make_dataset(N_TRAIN, seed=seed)
    g = torch.Generator().manual_seed(PERM_SEED + seed)
    rows = torch.randperm(len(xs_train), generator=g)[:PERM_BATCH].tolist()
    perm = torch.randperm(PERM_BATCH, generator=g)
    x, lengths = collate([xs_train[j] for j in rows])
    net = build_model(load_config(None, overrides + ["model.dropout=0.0"]).model, N_CHANNELS, N_CLASSES)
    net.load_state_dict(model.state_dict())
    net.train()  # with gradients on, as in training
    rec.save("train_mode", {"out": net(x, lengths).float(), "out_permuted": net(x[perm], lengths[perm]).float(),
                            "perm": perm})


measure_main(measure)
