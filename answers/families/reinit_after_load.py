"""Bug family: pretrained weights loaded, then an initialization pass run after the load re-initializes part
of them (a model-wide `apply(init)` meant for a new head), with a per-example loss-weight layer checked on the
batches the training loader actually yields.

Measuring side (`run_recorded`): runs the case's training entry point at the README settings, wrapping the
training-loader builder wherever the workspace holds it so every yielded batch's labels and loss weights are
recorded, and snapshotting, through a global forward pre-hook, the parameters of the first module run forward
in training mode with gradients on (the model, at its first training step). The pretrained file's arrays are
read separately (the pristine copy, so an edited file cannot vouch for itself).

Deciding side (`decide_training`): recomputes that every pretrained backbone array reached the first training
step unchanged, that the drawn loss weights follow their examples (the weight ratio between two label groups
that the data's provenance separates), and reads the final printed numbers.
"""

import re

from verifylib import is_training_model, run_readme_config


def run_recorded(rec, seed, load_config, run_fn, holders, name, original, config_path, pretrained_path,
                 prefix="backbone."):
    import numpy as np
    import torch

    drawn_y, drawn_w = [], []

    class Recording:
        def __init__(self, loader):
            self.loader = loader

        def __len__(self):
            return len(self.loader)

        def __getattr__(self, attr):
            return getattr(self.loader, attr)

        def __iter__(self):
            for batch in self.loader:
                if isinstance(batch, (tuple, list)) and len(batch) >= 3:
                    drawn_y.append(torch.as_tensor(batch[1]).detach().reshape(-1).clone())
                    drawn_w.append(torch.as_tensor(batch[2]).detach().reshape(-1).float().clone())
                yield batch

    def wrapped(*args, **kwargs):
        return Recording(original(*args, **kwargs))

    for holder in holders:
        setattr(holder, name, wrapped)

    state = {}

    def pre_hook(module, args):
        if "module" in state or not is_training_model(module):
            return
        state["module"] = module
        state["start"] = {k: p.detach().clone() for k, p in module.named_parameters()}

    handle = torch.nn.modules.module.register_module_forward_pre_hook(pre_hook)
    try:
        _, stdout, _ = run_readme_config(load_config, run_fn, config_path, seed, [handle])
    finally:
        for holder in holders:
            setattr(holder, name, original)
    rec.put("stdout", stdout)
    rec.put("trained", True)
    with np.load(pretrained_path) as arrays:
        pre = {k: torch.from_numpy(arrays[k]) for k in arrays.files if k.startswith(prefix)}
    rec.save("pretrained", pre)
    rec.put("pretrained_names", sorted(pre))
    if "module" not in state:
        rec.put("model_found", False)
        return
    rec.put("model_found", True)
    start = {k: v for k, v in state["start"].items() if k in pre}
    rec.save("start", start)
    rec.put("start_names", sorted(start))
    ys = torch.cat(drawn_y) if drawn_y else torch.zeros(0, dtype=torch.long)
    ws = torch.cat(drawn_w) if drawn_w else torch.zeros(0)
    rec.save("drawn", {"labels": ys.long(), "weights": ws})
    rec.put("batches", len(drawn_y))


def _final_numbers(stdout, alarm_label):
    bal = re.search(r"balanced acc ([0-9.]+)", stdout.splitlines()[-1] if stdout.strip() else "")
    alarm = re.search(rf"alarm \({alarm_label}\): recall ([0-9.]+)", stdout)
    return (float(bal.group(1)) if bal else float("nan"), float(alarm.group(1)) if alarm else float("nan"))


def decide_training(m, checks, s):
    m.value("trained", bool)
    checks.check("readme_config_trains", True, source="reported")
    found = m.value("model_found", bool)
    checks.check("training_forward_seen", found, source="reported")
    if not found:
        return
    pre_names = m.value("pretrained_names", list)
    start_names = m.value("start_names", list)
    pre = m.tensors("pretrained", keys=pre_names)
    start = m.tensors("start", keys=start_names)
    missing = [k for k in pre_names if k not in start or start[k].shape != pre[k].shape]
    worst = max([float((start[k].float() - pre[k].float()).abs().max()) for k in pre_names if k not in missing],
                default=float("inf"))
    ok = not missing and worst <= s["pretrained_atol"]
    checks.check("pretrained_backbone_reaches_training", ok, value=worst if not missing else len(missing),
                 bound=f"every one of the {len(pre_names)} pretrained backbone arrays equals the model's at its first "
                       f"training step within {s['pretrained_atol']} ({', '.join(missing[:3]) or 'none missing'})",
                 source="recomputed", limit=s["pretrained_atol"], sense="<")

    d = m.tensors("drawn", keys=["labels", "weights"])
    labels, weights = d["labels"].long(), d["weights"].double()
    enough = labels.numel() >= s["min_draws"] and labels.numel() == weights.numel()
    checks.check("every_epoch_drawn", enough, value=int(labels.numel()),
                 bound=f">= {s['min_draws']} weighted training examples", source="recomputed")
    ratio = float("nan")
    if enough:
        minority = labels != s["majority_class"]
        if minority.any() and (~minority).any():
            ratio = float(weights[minority].mean() / weights[~minority].mean().clamp_min(1e-12))
    checks.check("loss_weights_follow_examples", ratio >= s["min_weight_ratio"], value=ratio,
                 bound=f">= {s['min_weight_ratio']} (mean loss weight of the drawn defect passes / of the drawn "
                       f"sound passes; the data give about {s['expected_ratio']})",
                 source="recomputed", limit=s["min_weight_ratio"], sense=">")

    bal, alarm = _final_numbers(m.value("stdout", str), s["alarm_label"])
    checks.check("balanced_accuracy", bal >= s["min_bal_acc"], value=bal, bound=f">= {s['min_bal_acc']}",
                 source="reported", limit=s["min_bal_acc"], sense=">")
    checks.check("alarm_recall", alarm >= s["min_alarm_recall"], value=alarm, bound=f">= {s['min_alarm_recall']}",
                 source="reported", limit=s["min_alarm_recall"], sense=">")
