"""Bug family: gradient clipping that does not clip the update (the clip runs after optimizer.step(), on
gradients already applied, or on parameters the optimizer does not hold), with an outcome check on a
per-state score.

Measuring side (`run_recorded`): runs the case's training entry point at the README settings with a global
optimizer step post-hook that records, for every step of every optimizer, the global L2 norm of the
gradients the step has just applied (over the parameters of the optimizer's param groups; a step leaves
.grad as it used it, and a post-hook runs after the optimizer's own pre-hooks), and the printed log.

Deciding side (`decide_training`, `readme_checks`): recomputes from the recorded norms that every applied
update was clipped, reads the final balanced accuracy and one state's F1 from the log, and compares the
printed log of the README run with the measured seed-0 run.
"""

import re

from verifylib import check_readme_log_equals_measured_stdout, run_readme_config


def run_recorded(rec, seed, load_config, run_fn, config_path):
    import torch
    from torch.optim.optimizer import register_optimizer_step_post_hook

    norms = []

    def post_hook(optimizer, args, kwargs):
        grads = [p.grad.detach().float().reshape(-1) for g in optimizer.param_groups for p in g["params"]
                 if p.grad is not None]
        norms.append(float(torch.cat(grads).norm()) if grads else 0.0)

    handle = register_optimizer_step_post_hook(post_hook)
    cfg, stdout, result = run_readme_config(load_config, run_fn, config_path, seed, [handle])
    rec.put("stdout", stdout)
    rec.put("trained", True)
    rec.put("grad_clip", float(cfg.train.grad_clip))
    rec.save("norms", {"applied": torch.tensor(norms, dtype=torch.float64)})
    rec.put("steps", len(norms))
    return cfg, result


def _final_numbers(stdout, state):
    lines = stdout.splitlines()
    bal = re.search(r"balanced acc ([0-9.]+)", lines[-1] if lines else "")
    f1 = re.search(rf"val F1 by state:.*\b{state} ([0-9.]+)", stdout)
    return (float(bal.group(1)) if bal else float("nan"), float(f1.group(1)) if f1 else float("nan"))


def decide_training(m, checks, s):
    m.value("trained", bool)
    checks.check("readme_config_trains", True, source="reported")
    steps = m.value("steps", int)
    checks.check("every_step_seen", steps >= s["min_steps"], value=steps, bound=f">= {s['min_steps']} optimizer steps",
                 source="reported")
    clip = m.value("grad_clip", float)
    checks.check("config_clips_at_readme_value", abs(clip - s["grad_clip"]) < 1e-9, value=clip,
                 bound=f"== {s['grad_clip']} (train.grad_clip as the README's config sets it)", source="reported")
    norms = m.tensors("norms", keys=["applied"])["applied"]
    worst = float(norms.max()) if norms.numel() else float("inf")
    limit = s["grad_clip"] * (1 + s["clip_rtol"])
    checks.check("every_update_clipped", worst <= limit, value=worst,
                 bound=f"<= {limit:.4f} (largest global gradient norm an optimizer step applied)",
                 source="recomputed", limit=limit, sense="<")
    bal, f1 = _final_numbers(m.value("stdout", str), s["state"])
    checks.check("balanced_accuracy", bal >= s["min_bal_acc"], value=bal, bound=f">= {s['min_bal_acc']}",
                 source="reported", limit=s["min_bal_acc"], sense=">")
    checks.check("state_f1", f1 >= s["min_state_f1"], value=f1, bound=f">= {s['min_state_f1']} ({s['state']} F1)",
                 source="reported", limit=s["min_state_f1"], sense=">")


def readme_checks(run, measured, checks, s):
    ok, (bal_p, _) = check_readme_log_equals_measured_stdout(
        checks, run, measured, finals=lambda out: _final_numbers(out, s["state"]), tol=s["print_tol"])
    checks.check("readme_run_bal_acc", ok and bal_p >= s["min_bal_acc"], value=bal_p, bound=f">= {s['min_bal_acc']}",
                 source="readme_run")


# --- a meter exported as its running total: the usage the model reads vs float64 from the raw export ------

def record_meter_usage(rec, export_dir, meter, pretrained, datasets):
    """The meter column of what the model received (the run's own training and validation datasets,
    window ids and standardized inputs, mapped back to litres with the pretrained input statistics the
    README's run standardizes with), next to the usage recomputed here in float64 from the raw CSV text
    (total minus the zone's previous total; a zone's first window takes its second window's usage)."""
    import csv
    from pathlib import Path

    import numpy as np
    import torch

    want, col = {}, None
    for path in sorted(Path(export_dir).glob("*.csv")):
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader)
            col = header.index(meter)
            j = col - header.index("state") - 1
            series = {}
            for r in reader:
                series.setdefault(r[1], []).append((int(r[2]), r[0], float(r[col])))
        for rows in series.values():
            rows.sort()
            used = [b[2] - a[2] for a, b in zip(rows, rows[1:])]
            for (_, wid, _), u in zip(rows, [used[0]] + used):
                want[wid] = u
    stats = np.load(pretrained)
    mean, std = float(stats["input_mean"][j]), float(np.maximum(stats["input_std"][j], 1e-6))
    got = {}
    for ds in datasets:
        x = np.asarray(ds.x[:, j].detach().cpu().numpy() if hasattr(ds.x, "detach") else ds.x[:, j], dtype=np.float64)
        got.update(zip([str(w) for w in ds.window_ids], x * std + mean))
    ids = sorted(want)
    rec.put("meter_windows", len(ids))
    rec.put("meter_windows_matched", sum(w in got for w in ids))
    rec.save("meter", {"model": torch.tensor([got.get(w, float("nan")) for w in ids], dtype=torch.float64),
                       "raw64": torch.tensor([want[w] for w in ids], dtype=torch.float64)})


def decide_meter_usage(m, checks, s):
    import torch

    n, matched = m.value("meter_windows", int), m.value("meter_windows_matched", int)
    t = m.tensors("meter", keys=["model", "raw64"])
    diff = (t["model"] - t["raw64"]).abs()
    worst = float(diff.max()) if diff.numel() and not torch.isnan(diff).any() else float("inf")
    ok = n == matched and n > 0 and worst <= s["meter_tol"]
    checks.check("meter_usage_exact", ok, value=worst,
                 bound=f"<= {s['meter_tol']} L on all {n} windows (model input's meter usage vs float64 "
                       f"difference of the raw totals)", source="recomputed", limit=s["meter_tol"], sense="<")
