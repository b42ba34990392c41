"""Bug family: parameters created after the optimizer was built (a replaced module that no param group
holds, so it keeps its initialization while the rest trains), with a sampling layer checked on the
batches the training loader actually yields.

Measuring side (`run_recorded`): runs the case's training entry point at the README settings, wrapping the
training-loader builder wherever the workspace holds it so every yielded batch's labels are recorded, and
snapshotting, through a global forward pre-hook, the state of the first module run forward in training mode
with gradients on (the model, at its first training step) and the same module's state at the end.

Deciding side (`decide_training`, `readme_checks`): recomputes from the snapshots that every parameter
moved, from the recorded labels that the draws are class-balanced, and compares the printed log of the
README run with the measured seed-0 run.
"""

import re

from verifylib import check_readme_log_equals_measured_stdout, is_training_model, run_readme_config


def run_recorded(rec, seed, load_config, run_fn, holders, name, original, config_path):
    import torch

    drawn = []

    class Recording:
        def __init__(self, loader):
            self.loader = loader

        def __len__(self):
            return len(self.loader)

        def __getattr__(self, attr):
            return getattr(self.loader, attr)

        def __iter__(self):
            for batch in self.loader:
                drawn.append(torch.as_tensor(batch[1]).detach().reshape(-1).clone())
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
    if "module" not in state:
        rec.put("model_found", False)
        return
    rec.put("model_found", True)
    end = {k: p.detach().clone() for k, p in state["module"].named_parameters()}
    rec.save("start", state["start"])
    rec.save("end", end)
    rec.put("parameter_names", sorted(end))
    labels = torch.cat(drawn) if drawn else torch.zeros(0, dtype=torch.long)
    rec.save("drawn", {"labels": labels.long()})
    rec.put("batches", len(drawn))


def _final_numbers(stdout, alarm_label):
    bal = re.search(r"balanced acc ([0-9.]+)", stdout.splitlines()[-1] if stdout.strip() else "")
    alarm = re.search(rf"alarm \({alarm_label}\): recall ([0-9.]+)", stdout)
    return (float(bal.group(1)) if bal else float("nan"), float(alarm.group(1)) if alarm else float("nan"))


def decide_training(m, checks, s):
    import torch

    m.value("trained", bool)
    checks.check("readme_config_trains", True, source="reported")
    found = m.value("model_found", bool)
    checks.check("training_forward_seen", found, source="reported")
    if not found:
        return
    names = m.value("parameter_names", list)
    start = m.tensors("start", keys=names)
    end = m.tensors("end", keys=names)
    still = [k for k in names if start[k].shape != end[k].shape
             or float((end[k].float() - start[k].float()).abs().max()) <= s["moved_atol"]]
    checks.check("every_parameter_trains", not still, value=len(still),
                 bound=f"== 0 parameters unchanged from the first training step to the end ({', '.join(still[:4])})",
                 source="recomputed", limit=0, sense="<")

    labels = m.tensors("drawn", keys=["labels"])["labels"].long()
    n_classes = s["n_classes"]
    enough = labels.numel() >= s["min_draws"] and bool(((labels >= 0) & (labels < n_classes)).all())
    checks.check("every_epoch_drawn", enough, value=int(labels.numel()), bound=f">= {s['min_draws']} labels",
                 source="recomputed")
    if enough:
        share = torch.bincount(labels, minlength=n_classes).double() / labels.numel()
        worst = float((share - 1.0 / n_classes).abs().max())
    else:
        worst = float("inf")
    checks.check("draws_are_class_balanced", worst <= s["share_tol"], value=worst,
                 bound=f"<= {s['share_tol']} (largest |class share - 1/{n_classes}| over the drawn training labels)",
                 source="recomputed", limit=s["share_tol"], sense="<")

    bal, alarm = _final_numbers(m.value("stdout", str), s["alarm_label"])
    checks.check("balanced_accuracy", bal >= s["min_bal_acc"], value=bal, bound=f">= {s['min_bal_acc']}",
                 source="reported", limit=s["min_bal_acc"], sense=">")
    checks.check("alarm_recall", alarm >= s["min_alarm_recall"], value=alarm, bound=f">= {s['min_alarm_recall']}",
                 source="reported", limit=s["min_alarm_recall"], sense=">")


def readme_checks(run, measured, checks, s):
    ok, (bal_p, _) = check_readme_log_equals_measured_stdout(
        checks, run, measured, finals=lambda out: _final_numbers(out, s["alarm_label"]), tol=s["print_tol"])
    checks.check("readme_run_bal_acc", ok and bal_p >= s["min_bal_acc"], value=bal_p, bound=f">= {s['min_bal_acc']}",
                 source="readme_run")
