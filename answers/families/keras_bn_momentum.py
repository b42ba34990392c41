"""Bug family: a batch-norm momentum ported with Keras semantics (the share of the OLD running statistic
kept) into PyTorch (the share of the NEW batch taken), so the running statistics evaluation normalizes with
are essentially the last training batch's; checked with a data-assembly layer measured on its outcome.

Measuring side (`run_recorded`): runs the case's training entry point at the README settings with a global
forward pre-hook that finds the first module run forward in training mode with gradients on (the model at
its first training step); when run() returns, records every BatchNorm module of that model (its momentum,
None recorded as 0.0 = a cumulative average) and what run() printed.

Deciding side (`decide_training`, `readme_checks`): bounds every recorded momentum (the share of each batch
that enters the running statistics), requires batch norm to be kept, bounds the printed final accuracy and
alert recall, and compares the printed log of the README run with the measured seed-0 run.
"""

import re

from verifylib import check_readme_log_equals_measured_stdout, is_training_model, run_readme_config


def run_recorded(rec, seed, load_config, run_fn, config_path):
    import torch

    state = {}

    def pre_hook(module, args):
        if "module" in state or not is_training_model(module):
            return
        state["module"] = module

    handle = torch.nn.modules.module.register_module_forward_pre_hook(pre_hook)
    _, stdout, _ = run_readme_config(load_config, run_fn, config_path, seed, [handle])
    rec.put("stdout", stdout)
    rec.put("trained", True)
    rec.put("model_found", "module" in state)
    if "module" not in state:
        return
    norms = [m for m in state["module"].modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    rec.put("bn_momenta", [0.0 if m.momentum is None else float(m.momentum) for m in norms])
    rec.put("bn_tracks_stats", [bool(m.track_running_stats) for m in norms])


def final_numbers(stdout, alert_label):
    last = stdout.splitlines()[-1] if stdout.strip() else ""
    acc = re.search(r"val acc ([0-9.]+)", last)
    alert = re.search(rf"alert \({alert_label}\): recall ([0-9.]+)", stdout)
    return (float(acc.group(1)) if acc else float("nan"), float(alert.group(1)) if alert else float("nan"))


def decide_training(m, checks, s):
    m.value("trained", bool)
    checks.check("readme_config_trains", True, source="reported")
    found = m.value("model_found", bool)
    checks.check("training_forward_seen", found, source="reported")
    if not found:
        return
    momenta = m.value("bn_momenta", list)
    tracks = m.value("bn_tracks_stats", list)
    kept = len(momenta) >= s["min_bn_layers"] and all(tracks)
    checks.check("batch_norm_kept", kept, value=len(momenta),
                 bound=f">= {s['min_bn_layers']} BatchNorm layers, each tracking running statistics",
                 source="reported")
    worst = max(momenta) if momenta else float("inf")
    checks.check("running_stats_average_many_batches", worst <= s["max_momentum"], value=worst,
                 bound=f"<= {s['max_momentum']} (largest share of one batch entering a running statistic)",
                 source="reported", limit=s["max_momentum"], sense="<")
    acc, alert = final_numbers(m.value("stdout", str), s["alert_label"])
    checks.check("val_accuracy", acc >= s["min_acc"], value=acc, bound=f">= {s['min_acc']}",
                 source="reported", limit=s["min_acc"], sense=">")
    checks.check("alert_recall", alert >= s["min_alert_recall"], value=alert, bound=f">= {s['min_alert_recall']}",
                 source="reported", limit=s["min_alert_recall"], sense=">")


def readme_checks(run, measured, checks, s):
    ok, (acc_p, alert_p) = check_readme_log_equals_measured_stdout(
        checks, run, measured, finals=lambda out: final_numbers(out, s["alert_label"]), tol=s["print_tol"])
    checks.check("readme_run_val_acc", ok and acc_p >= s["min_acc"], value=acc_p, bound=f">= {s['min_acc']}",
                 source="readme_run")
    checks.check("readme_run_alert_recall", ok and alert_p >= s["min_alert_recall"], value=alert_p,
                 bound=f">= {s['min_alert_recall']}", source="readme_run")
