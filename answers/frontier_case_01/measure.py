"""frontier_case_01, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-f01-5b8e20d4c7a193f6

Trains with the agent's code exactly as the README runs it (entry points train.config_from_args,
train.train): `--config configs/mix.toml`, with only the seed set per run, and records:
- every gradient-enabled forward's input ids (a global forward pre-hook, kept for the model
  train() returns), tagged with the number of optimizer steps taken before it, so the decider
  sees which micro-batches made each optimizer step's window;
- at the first window and at every logged one (windows 9, 19, ..., 59: the README logs steps
  10, 20, ..., 60, each with the loss of the window that step trained on): the parameters, the
  gradients as they stood at the window's last call of clip_grad_norm_ (before that clip) and
  when the optimizer stepped (after it), by parameter name, and how many times clip_grad_norm_
  was called in the window;
- every optimizer step: its class and learning rates;
- every distinct conversation the model trained on (the rows of all gradient-enabled forwards,
  padding stripped), as short digests of its token ids, and the longest reply among them.
The decider rebuilds each checked window's full-batch gradient itself from the ids and weights.
"""

import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

README_ARGS = ["--config", "configs/mix.toml"]
CHECKED_WINDOWS = (0, 9, 19, 29, 39, 49, 59)


def measure(seed, rec):
    import torch
    import torch.nn.utils as nn_utils
    import torch.nn.utils.clip_grad as clip_module
    from torch.nn.modules.module import register_module_forward_pre_hook
    from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

    taken = {"steps": 0}
    forwards, step_log = [], []
    snaps = {}  # window -> {"params": {id: t}, "pre": {id: t}, "post": {id: t}}

    def checked(window):
        return window in CHECKED_WINDOWS

    def on_forward(module, args):
        if torch.is_grad_enabled() and args and isinstance(args[0], torch.Tensor) \
                and args[0].dim() == 2 and not args[0].is_floating_point():
            forwards.append((id(module), taken["steps"], args[0].detach().clone()))

    def snapshot(params, kind):
        """Keeps the window's last clip call ("pre") and its optimizer step ("post")."""
        w = taken["steps"]
        if not checked(w):
            return
        slot = snaps.setdefault(w, {})
        if kind == "post" and kind in slot:
            return
        slot[kind] = {id(p): p.grad.detach().clone() for p in params if p.grad is not None}
        slot.setdefault("params", {id(p): p.detach().clone() for p in params})
        if kind == "pre":
            slot["clip_calls"] = slot.get("clip_calls", 0) + 1

    clip = nn_utils.clip_grad_norm_

    def recording_clip(parameters, *args, **kwargs):
        params = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
        snapshot(params, "pre")
        return clip(params, *args, **kwargs)

    def on_step(opt, args, kwargs):
        step_log.append((type(opt).__name__, [g["lr"] for g in opt.param_groups]))
        snapshot([p for g in opt.param_groups for p in g["params"]], "post")

    def after_step(opt, args, kwargs):
        taken["steps"] += 1

    nn_utils.clip_grad_norm_ = recording_clip
    clip_module.clip_grad_norm_ = recording_clip
    handles = [register_module_forward_pre_hook(on_forward), register_optimizer_step_pre_hook(on_step),
               register_optimizer_step_post_hook(after_step)]
    try:
        train = import_workspace_module("train")
        config_from_args, train_fn = require(train, "config_from_args", "train")
        cfg = config_from_args(README_ARGS + ["--set", f"train.seed={seed}"])
        model, _ = train_fn(cfg)
    finally:
        for h in handles:
            h.remove()
        nn_utils.clip_grad_norm_ = clip
        clip_module.clip_grad_norm_ = clip

    names = {id(p): n for n, p in model.named_parameters()}
    own = [(w, x) for owner, w, x in forwards if owner == id(model)]
    per_window = {}
    for w, x in own:
        per_window.setdefault(w, []).append(list(x.shape))
    rec.put("optimizer_steps", len(step_log))
    rec.put("optimizers", sorted({kind for kind, _ in step_log}))
    rec.put("peak_learning_rate", max((lr for _, lrs in step_log for lr in lrs), default=None))
    rec.put("windows", {str(w): shapes for w, shapes in sorted(per_window.items())})
    rec.put("checked_windows", sorted(snaps))
    rows = set()
    for _, x in own:
        for row in x.tolist():
            rows.add(tuple(t for t in row if t != 0))
    rec.put("trained_rows", sorted(hashlib.sha1(",".join(map(str, r)).encode()).hexdigest()[:16] for r in rows))
    for w, slot in sorted(snaps.items()):
        tensors = {f"ids_{i}": x for i, x in enumerate([x for win, x in own if win == w])}
        tensors["clip_calls"] = torch.tensor(slot.get("clip_calls", 0))
        for kind in ("params", "pre", "post"):
            for pid, t in slot.get(kind, {}).items():
                if pid in names:
                    tensors[f"{kind}.{names[pid]}"] = t
        rec.save(f"window_{w:03d}", tensors)


measure_main(measure)
