"""hard_case_03, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-h03-ce39008fe54aa1fc

Entry points: config.load_config (called with no file and the README's configuration as overrides,
so the experiment is pinned whatever configs/ now says), train.run_experiment(cfg) -> (encoder,
normalizer, classifier, history rows), splits.build_splits(cfg) -> (train_set, val_set),
glyphs.make_glyphs (replaced, in every loaded workspace module that imported it, by this file's own
copy of the case's generator), memory.MemoryBank.log_probs (called on the classifier
run_experiment returns). Seeds 0, 1, 2 at the README's configuration (configs/nca.toml: 100
classes x 10 images, 20% validation, random split, class-balanced batches of 16 x 4, conv encoder
dim 64, NCA bank with tau 0.04 refreshed every 10 steps, Adam lr 1e-3, 60 steps, logged every 20);
seed 3 on a second data shape (50 classes x 20 images, 30% validation, 40 steps). Per seed, two
trainings:

- run A on the case's data as shipped;
- run B on the same data with only the validation rows' images replaced by other draws of the
  same glyphs (labels and split unchanged; the split's validation rows are found by content in
  what build_splits returns, never through a Subset's attributes).

Recorded, per seed:
- the split build_splits returns (images and labels of both parts, from the items the datasets yield);
- run A: every optimizer step (class, learning rates), the trained encoder's state_dict and its
  parameters at the first optimizer step (the initial encoder), the history run_experiment
  returns, every value passed to backward (the training loss; by step: seed 0 is the README's
  run, whose printed losses the decider compares with them), what the returned normalizer makes
  of every image, and what the returned classifier predicts: for the validation images, and for
  the training images with the row ids their dataset yields (query_ids, the leave-self-out path);
- run B: the trained encoder's state_dict, the returned normalizer's output on run A's images,
  and the validation images of B's split (to show the replacement reached the pipeline).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

PINNED = {"name": '"nca-bank"', "data.n_classes": 100, "data.per_class": 10, "data.noise": 0.45,
          "data.val_frac": 0.2, "data.split": '"random"', "data.augment": "false", "data.balanced_batches": "true",
          "model.encoder": '"conv"', "model.dim": 64, "model.width": 32,
          "classifier.kind": '"nca"', "classifier.tau": 0.04, "classifier.refresh_every": 10,
          "optim.lr": 1e-3, "optim.weight_decay": 0.0, "optim.steps": 60, "optim.batch_size": 64,
          "optim.warmup_steps": 0, "eval.every": 20, "eval.batch_size": 256}
# seeds 0-2: the README's settings; seed 3: a second data shape (50 classes x 20 images, 30% validation),
# so a fix tied to the default sizes (1000 rows, 200 of them validation) shows.
SETTINGS = {0: PINNED, 1: PINNED, 2: PINNED,
            3: {**PINNED, "data.n_classes": 50, "data.per_class": 20, "data.val_frac": 0.3, "optim.steps": 40}}
MAX_BY_STEP = 200
OTHER_DRAW = 1000  # run B's validation images: the same rows of the data generated with seed + OTHER_DRAW


def _glyphs(n_classes, size, gen):
    import torch

    base = torch.zeros(n_classes, size, size)
    for c in range(n_classes):
        for _ in range(4):
            r, q = torch.randint(1, size - 1, (2,), generator=gen).tolist()
            length = int(torch.randint(3, size - 2, (1,), generator=gen))
            if torch.rand(1, generator=gen) < 0.5:
                base[c, r, q:q + length] = 1.0
            else:
                base[c, r:r + length, q] = 1.0
    return base


def make_glyphs(n_classes=100, per_class=10, size=12, noise=0.45, seed=0):
    """The case's glyphs.make_glyphs, copied so the agent cannot change the data."""
    import torch

    glyphs = _glyphs(n_classes, size, torch.Generator().manual_seed(4321))
    g = torch.Generator().manual_seed(seed)
    labels = torch.arange(n_classes).repeat_interleave(per_class)
    images = glyphs[labels]
    shifts = torch.randint(-1, 2, (len(labels), 2), generator=g)
    images = torch.stack([torch.roll(im, tuple(s.tolist()), dims=(0, 1)) for im, s in zip(images, shifts)])
    contrast = 0.6 + 0.8 * torch.rand(len(labels), 1, 1, generator=g)
    images = contrast * images + noise * torch.randn(images.shape, generator=g)
    return images.unsqueeze(1), labels


def data_source(replace_rows=None):
    """make_glyphs with the given rows' images taken from another draw (None: the data as shipped)."""
    import inspect

    import torch

    sig = inspect.signature(make_glyphs)

    def source(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        images, labels = make_glyphs(**bound.arguments)
        if replace_rows is not None:
            other, other_labels = make_glyphs(**{**bound.arguments, "seed": bound.arguments["seed"] + OTHER_DRAW})
            assert torch.equal(other_labels, labels)
            images[replace_rows] = other[replace_rows]
        return images, labels

    return source


def items(ds):
    """A split's images, labels and row ids, read the way train() reads them: ds[i] -> (x, y, id)."""
    import torch

    xs, ys, ids = [], [], []
    for i in range(len(ds)):
        x, y, r = ds[i]
        xs.append(torch.as_tensor(x))
        ys.append(int(y))
        ids.append(int(r))
    return torch.stack(xs).float(), torch.tensor(ys), torch.tensor(ids)


def rows_of(images, full):
    """Positions in ``full`` of each image (exact content match); ValueError for an image not in the data."""
    index = {full[i].numpy().tobytes(): i for i in range(len(full))}
    rows = []
    for im in images:
        key = im.contiguous().numpy().tobytes()
        if key not in index:
            raise ValueError("build_splits returned an image that is not a row of the case's data")
        rows.append(index[key])
    return rows


def measure(seed, rec):
    import torch
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    glyphs = import_workspace_module("glyphs")
    require(glyphs, "make_glyphs")
    memory = import_workspace_module("memory")
    require(memory, "MemoryBank.log_probs")
    config = import_workspace_module("config")
    load_config = require(config, "load_config")
    splits_mod = import_workspace_module("splits")
    build_splits = require(splits_mod, "build_splits")
    train = import_workspace_module("train")
    train_fn = require(train, "run_experiment")
    settings = SETTINGS[seed]
    cfg = load_config(None, [f"{k}={v}" for k, v in settings.items()] + [f"seed={seed}"])
    n_classes, per_class = settings["data.n_classes"], settings["data.per_class"]
    ws = str(Path.cwd().resolve())  # measure_main runs in the workspace
    modules = [m for m in list(sys.modules.values())
               if str(getattr(m, "__file__", None) or "").startswith(ws + "/")
               and getattr(m, "make_glyphs", None) is glyphs.make_glyphs]
    originals = {m: m.make_glyphs for m in modules}

    def run(source):
        """train() and build_splits() on the data ``source`` gives, with the optimizer and backward watched."""
        steps, initial, backward_values = [], {}, []

        def on_step(opt, args, kwargs):
            if not steps:
                initial["params"] = [p.detach().clone() for g in opt.param_groups for p in g["params"]]
            steps.append((type(opt).__name__, [g["lr"] for g in opt.param_groups]))

        backward = torch.autograd.backward

        def recording_backward(tensors, *args, **kwargs):
            t = tensors[0] if isinstance(tensors, (tuple, list)) else tensors
            if isinstance(t, torch.Tensor) and t.numel() == 1:
                backward_values.append(float(t.detach()))
            return backward(tensors, *args, **kwargs)

        for m in modules:
            m.make_glyphs = source
        torch.autograd.backward = recording_backward
        handle = register_optimizer_step_pre_hook(on_step)
        try:
            torch.manual_seed(cfg.seed)  # as run_experiment() does before it builds the splits
            splits = build_splits(cfg)
            result = train_fn(cfg)
        finally:
            handle.remove()
            torch.autograd.backward = backward
            for m, fn in originals.items():
                m.make_glyphs = fn
        if not isinstance(result, tuple) or len(result) != 4:
            raise TypeError("run_experiment() must return (encoder, norm, classifier, history)")
        return splits, result, steps, initial.get("params"), backward_values

    full_x, full_y = make_glyphs(n_classes, per_class, seed=seed)

    # run A: the data as shipped
    (train_set, val_set), (encoder, norm, bank, history), steps, init_params, backward_values = run(data_source())
    tr_x, tr_y, tr_ids = items(train_set)
    va_x, va_y, _ = items(val_set)
    val_rows = rows_of(va_x, full_x)
    rec.save("split", {"train_x": tr_x, "train_y": tr_y, "val_x": va_x, "val_y": va_y})
    rec.put("optimizer_steps", len(steps))
    rec.put("optimizers", sorted({kind for kind, _ in steps}))
    rec.put("learning_rates", sorted({lr for _, lrs in steps for lr in lrs})[:10])
    rec.put("backward_values", backward_values[:5])
    rec.put("backward_values_by_step", backward_values[:MAX_BY_STEP])
    rec.put("backward_calls", len(backward_values))
    rec.put("history", [{k: float(v) for k, v in h.items() if isinstance(v, (int, float))} for h in history][:50])
    state = encoder.state_dict()
    rec.save("encoder", state)
    names = [n for n, _ in encoder.named_parameters()]
    if init_params is None or len(init_params) != len(names):
        raise ValueError("the optimizer does not step exactly the encoder's parameters")
    rec.save("encoder_initial", dict(zip(names, init_params)))
    encoder.eval()
    with torch.no_grad():
        rec.save("predictions", {
            "normalized": norm(full_x),
            "val_probs": bank.log_probs(encoder(norm(va_x)), cfg.classifier.tau).exp(),
            "train_probs": bank.log_probs(encoder(norm(tr_x)), cfg.classifier.tau, query_ids=tr_ids).exp(),
        })

    # run B: only the validation rows' images differ
    (_, val_b), (encoder_b, norm_b, _, _), _, _, _ = run(data_source(torch.tensor(val_rows)))
    vb_x, _, _ = items(val_b)
    with torch.no_grad():
        rec.save("run_b", {"normalized": norm_b(full_x), "val_x": vb_x})
    rec.save("encoder_b", encoder_b.state_dict())


measure_main(measure, seeds=tuple(SETTINGS))
