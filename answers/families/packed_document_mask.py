"""Bug family: packed sequences without document boundaries (examples concatenated into fixed-length rows
for throughput while attention stays plain causal over the row, so each example attends to the unrelated
examples packed before it), here with a second layer checked only by its outcome.

Measuring side (`run_probed`): runs the case's training entry point at the README settings. A global forward
pre-hook finds the model (the first module run forward in training mode with gradients on) and records the
arguments of its next training call (a packed batch, with whatever layout arguments the agent passes). When
training is over, the trained model is run in eval mode on that batch twice: as recorded, and with every
content token before each row's last document-start token replaced by another content token. The largest
change of the outputs from that start token on is recorded (0 when a document sees only itself).

Deciding side (`decide_outcome`, `readme_checks`): bounds that change, and the final printed accuracies.
"""

import re

from verifylib import check_readme_log_equals_measured_stdout, is_training_model, run_readme_config


def _clone(obj):
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.detach().clone()
    if isinstance(obj, (list, tuple)):
        return type(obj)(_clone(o) for o in obj)
    if isinstance(obj, dict):
        return {k: _clone(v) for k, v in obj.items()}
    return obj


def run_probed(rec, seed, load_config, run_fn, config_path, s):
    import torch

    state = {}

    def pre_hook(module, args):
        if "module" in state or not is_training_model(module):
            return
        state["module"] = module
        original = module.forward

        def forward(*a, **k):
            if "call" not in state and torch.is_grad_enabled() and module.training:
                state["call"] = (_clone(a), _clone(k))
            return original(*a, **k)

        module.forward = forward

    handle = torch.nn.modules.module.register_module_forward_pre_hook(pre_hook)
    _, stdout, _ = run_readme_config(load_config, run_fn, config_path, seed, [handle])
    rec.put("stdout", stdout)
    rec.put("trained", True)
    found = "module" in state and "call" in state
    rec.put("model_found", found)
    if not found:
        return
    model = state["module"]
    args, kwargs = state["call"]
    tokens = args[0]
    lo, hi = s["content_ids"]
    starts = (tokens >= s["start_ids"][0]) & (tokens <= s["start_ids"][1])
    idx = torch.arange(tokens.shape[1]).expand_as(tokens)
    last_start = torch.where(starts, idx, torch.full_like(idx, -1)).max(1).values
    before = (idx < last_start[:, None]) & (tokens >= lo) & (tokens <= hi)
    perturbed = tokens.clone()
    perturbed[before] = (tokens[before] - lo + 1) % (hi - lo + 1) + lo
    model.eval()
    with torch.no_grad():
        a = model(*args, **kwargs)
        b = model(perturbed, *args[1:], **kwargs)
    a = a[0] if isinstance(a, (tuple, list)) else a
    b = b[0] if isinstance(b, (tuple, list)) else b
    after = (idx >= last_start[:, None]) & (last_start[:, None] >= 0)
    change = float((a - b).abs().amax(-1)[after].max()) if bool(after.any()) else 0.0
    rec.put("rows_probed", int((before.any(1)).sum()))
    rec.put("later_document_change", change)


def final_numbers(stdout, cohort_label):
    last = stdout.strip().splitlines()[-1] if stdout.strip() else ""
    acc = re.search(r"val acc ([0-9.]+)", last)
    cohort = re.search(rf"val acc by cohort:.*{cohort_label} ([0-9.]+)", stdout)
    return (float(acc.group(1)) if acc else float("nan"), float(cohort.group(1)) if cohort else float("nan"))


def decide_outcome(m, checks, s):
    m.value("trained", bool)
    checks.check("readme_config_trains", True, source="reported")
    found = m.value("model_found", bool)
    checks.check("training_forward_seen", found, source="reported")
    if found:
        change = m.value("later_document_change", float)
        rows = m.value("rows_probed", int)
        checks.check("documents_see_only_themselves", change <= s["change_tol"], value=change,
                     bound=f"<= {s['change_tol']} (largest output change from a row's last document on when the "
                           f"documents before it are altered; {rows} rows altered)",
                     source="reported", limit=s["change_tol"], sense="<")
    acc, cohort = final_numbers(m.value("stdout", str), s["cohort_label"])
    checks.check("val_accuracy", acc >= s["min_val_acc"], value=acc, bound=f">= {s['min_val_acc']}",
                 source="reported", limit=s["min_val_acc"], sense=">")
    checks.check("cohort_accuracy", cohort >= s["min_cohort_acc"], value=cohort,
                 bound=f">= {s['min_cohort_acc']} ({s['cohort_label']})",
                 source="reported", limit=s["min_cohort_acc"], sense=">")


def readme_checks(run, measured, checks, s):
    ok, (acc_p, _) = check_readme_log_equals_measured_stdout(
        checks, run, measured, finals=lambda out: final_numbers(out, s["cohort_label"]), tol=s["print_tol"],
        fields=("val acc", "val loss"), what="the final lines")
    checks.check("readme_run_val_acc", ok and acc_p >= s["min_val_acc"], value=acc_p, bound=f">= {s['min_val_acc']}",
                 source="readme_run")
