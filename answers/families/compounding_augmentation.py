"""Bug family: an in-place augmentation applied to a cached example (a view into the dataset's stored
tensor), so every draw's noise, gain and dropout are written back into the cache and compound epoch after
epoch: the training inputs drift away from the validation inputs while the loop itself looks healthy.

Measuring side (`run_recorded`): runs the case's training entry point at the README settings with a global
forward pre-hook that, for the first module run forward in training mode with gradients on (the model), keeps
per training forward: the number of exactly-zero inputs, the number of inputs and their sum of squares.

Deciding side (`decide_training`, `readme_checks`): recomputes from those records that the training inputs
are as stationary at the end of the run as at its start (their mean square, clipped at +-4, over the last
and the first tenth of the training forwards), that the augmentation is still applied (the share of zeroed
readings early in training), and checks the printed outcome; then compares the printed
log of the README run with the measured seed-0 run.
"""

import re

from verifylib import check_readme_log_equals_measured_stdout, run_readme_config


def run_recorded(rec, seed, load_config, run_fn, config_path):
    import torch

    state = {"module": None, "rows": []}

    def pre_hook(module, args):
        if not module.training or not torch.is_grad_enabled():
            return
        if state["module"] is None:
            if not any(p.requires_grad for p in module.parameters()):
                return
            state["module"] = module
        if module is not state["module"] or not args:
            return
        x = args[0]
        if not torch.is_tensor(x) or not x.is_floating_point():
            return
        x = x.detach()
        xc = x.double().clamp(-4.0, 4.0)
        state["rows"].append([float((x == 0).sum()), float(x.numel()), float((xc ** 2).sum())])

    handle = torch.nn.modules.module.register_module_forward_pre_hook(pre_hook)
    _, stdout, _ = run_readme_config(load_config, run_fn, config_path, seed, [handle])
    rec.put("stdout", stdout)
    rec.put("trained", True)
    rec.put("model_found", state["module"] is not None)
    rec.save("inputs", {"rows": torch.tensor(state["rows"] or [[0.0, 0.0, 0.0]], dtype=torch.float64)})
    rec.put("forwards", len(state["rows"]))


def _final_numbers(stdout, alarm_label):
    lines = stdout.splitlines()
    bal = re.search(r"balanced acc ([0-9.]+)", lines[-1] if lines else "")
    alarm = re.search(rf"alert \({alarm_label}\): recall ([0-9.]+)", stdout)
    return (float(bal.group(1)) if bal else float("nan"), float(alarm.group(1)) if alarm else float("nan"))


def _window_stats(rows):
    zeros, n, sq = rows[:, 0].sum(), rows[:, 1].sum(), rows[:, 2].sum()
    n = max(float(n), 1.0)
    return float(zeros) / n, float(sq) / n


def decide_training(m, checks, s):
    m.value("trained", bool)
    checks.check("readme_config_trains", True, source="reported")
    found = m.value("model_found", bool)
    checks.check("training_forward_seen", found, source="reported")
    if not found:
        return
    rows = m.tensors("inputs", keys=["rows"])["rows"].double()
    enough = rows.shape[0] >= s["min_forwards"]
    checks.check("every_epoch_trained", enough, value=int(rows.shape[0]),
                 bound=f">= {s['min_forwards']} training forwards", source="recomputed")
    if enough:
        k = max(1, rows.shape[0] // s["window_div"])
        z0, q0 = _window_stats(rows[:k])
        _, q1 = _window_stats(rows[-k:])
        qratio = q1 / max(q0, 1e-12)
    else:
        z0, qratio = float("nan"), float("inf")
    checks.check("input_scale_stationary", qratio <= s["max_sq_ratio"], value=qratio,
                 bound=f"<= {s['max_sq_ratio']} (mean square of the training inputs clipped at +-4, last / first "
                       f"{100 // s['window_div']}% of training forwards)",
                 source="recomputed", limit=s["max_sq_ratio"], sense="<")
    lo, hi = s["dropout_share"]
    checks.check("augmentation_still_applied", enough and lo <= z0 <= hi, value=z0,
                 bound=f"in [{lo}, {hi}] (share of zero inputs early in training: the readings the "
                       "augmentation drops)", source="recomputed")

    bal, alarm = _final_numbers(m.value("stdout", str), s["alarm_label"])
    checks.check("balanced_accuracy", bal >= s["min_bal_acc"], value=bal, bound=f">= {s['min_bal_acc']}",
                 source="reported", limit=s["min_bal_acc"], sense=">")
    checks.check("alert_recall", alarm >= s["min_alarm_recall"], value=alarm,
                 bound=f">= {s['min_alarm_recall']}", source="reported", limit=s["min_alarm_recall"], sense=">")


def readme_checks(run, measured, checks, s):
    ok, (bal_p, _) = check_readme_log_equals_measured_stdout(
        checks, run, measured, finals=lambda out: _final_numbers(out, s["alarm_label"]), tol=s["print_tol"])
    checks.check("readme_run_bal_acc", ok and bal_p >= s["min_bal_acc"], value=bal_p,
                 bound=f">= {s['min_bal_acc']}", source="readme_run")
