"""Bug family: a learning-rate schedule written in one unit (epochs) and stepped in another (batches),
behind a training objective whose pull on a prediction does not grow with its error, so the rare large
errors of one group's legitimate peaks are fitted no faster than any small one (frontier_case_05).

Measuring body (`run_recorded`): runs the agent's `load_config(CONFIG, [train.seed=s])` and `run(cfg)`
with a global optimizer step hook that records the learning rate of every optimizer step, and a wrapper
on torch's regression losses that, on every 10th training call, recomputes the loss's gradient with
respect to the predictions (on detached copies) and records how it scales with the residual. Deciding
body (`decide_schedule_and_targets`, `readme_checks`): bounds on the schedule's shape over the run, on
the objective's pull on large residuals, and on the held-out report.
"""

import math
import re

LOSS_NAMES = ("mse_loss", "l1_loss", "huber_loss", "smooth_l1_loss", "poisson_nll_loss")


def run_recorded(rec, seed, load_config, run_fn, config_path):
    import torch
    import torch.nn.functional as F
    from torch.optim.optimizer import register_optimizer_step_post_hook

    lrs, pulls, calls = [], [], [0]

    def on_step(optimizer, args, kwargs):
        lrs.append(float(optimizer.param_groups[0]["lr"]))

    originals = {}

    def wrap(name):
        fn = getattr(F, name)
        originals[name] = fn

        def recorded(*args, **kwargs):
            pred = kwargs.get("input", args[0] if args else None)
            target = kwargs.get("target", args[1] if len(args) > 1 else None)
            if (isinstance(pred, torch.Tensor) and isinstance(target, torch.Tensor) and pred.requires_grad
                    and not target.requires_grad and pred.shape == target.shape and pred.numel() >= 16):
                calls[0] += 1
                if calls[0] % 10 == 1:
                    pulls.append(_pull_ratio(fn, pred, target, args[2:],
                                             {k: v for k, v in kwargs.items() if k not in ("input", "target")}))
            return fn(*args, **kwargs)

        setattr(F, name, recorded)

    handle = register_optimizer_step_post_hook(on_step)
    for name in LOSS_NAMES:
        if hasattr(F, name):
            wrap(name)
    try:
        cfg = load_config(config_path, [f"train.seed={seed}"])
        out = run_fn(cfg)
    finally:
        handle.remove()
        for name, fn in originals.items():
            setattr(F, name, fn)
    report = out["report"] if isinstance(out, dict) else getattr(out, "report")
    rec.put("lrs", lrs)
    rec.put("loss_calls", calls[0])
    rec.put("pull_ratios", [p for p in pulls if p is not None])
    rec.put("report", {k: {m: float(v) for m, v in r.items()} for k, r in report.items()})


def _pull_ratio(fn, pred, target, rest, kwargs):
    """How the loss's gradient on a prediction scales with its residual, within one batch: (mean |grad| of
    the quarter of rows with the largest |residual| over that of the quarter with the smallest) divided by
    (the same ratio of mean |residual|). Squared error gives 1; absolute error about 1/(residual ratio)."""
    import torch

    with torch.enable_grad():
        p = pred.detach().double().clone().requires_grad_(True)
        t = target.detach().double()
        loss = fn(p, t, *rest, **kwargs)
        if loss.dim() > 0:
            loss = loss.sum()
        (g,) = torch.autograd.grad(loss, p)
    r = (p.detach() - t).abs().reshape(-1)
    g = g.abs().reshape(-1)
    order = torch.argsort(r)
    q = max(1, len(order) // 4)
    lo, hi = order[:q], order[-q:]
    r_lo, r_hi = float(r[lo].mean()), float(r[hi].mean())
    g_lo, g_hi = float(g[lo].mean()), float(g[hi].mean())
    if r_lo <= 0 or g_lo <= 0 or r_hi <= 2 * r_lo:
        return None
    return (g_hi / g_lo) / (r_hi / r_lo)


def _lr_shape(lrs):
    peak = max(lrs)
    mid = lrs[len(lrs) // 2]
    return peak, mid / peak, lrs[-1] / peak


def decide_schedule_and_targets(m, checks, s, keep):
    lrs = m.value("lrs", list)
    if not lrs or not all(isinstance(v, (int, float)) and math.isfinite(v) and v >= 0 for v in lrs):
        checks.check("lr_recorded", False, value=len(lrs), bound="finite lr at every optimizer step")
        return
    checks.check("every_batch_steps", len(lrs) >= s["steps"], value=len(lrs),
                 bound=f">= {s['steps']} optimizer steps (12 epochs x 126 batches)", source="reported",
                 limit=s["steps"] - 0.5, sense=">")
    peak, mid, end = _lr_shape(lrs)
    checks.check("schedule_spans_the_run", mid >= s["mid_ratio"], value=round(mid, 4),
                 bound=f">= {s['mid_ratio']} (lr halfway through the optimizer steps over the run's peak lr; "
                       "the cosine gives ~0.55, a schedule spent early sits at its floor 0.1)",
                 source="recomputed", limit=s["mid_ratio"], sense=">")
    checks.check("schedule_decays_by_the_end", end <= s["end_ratio"], value=round(end, 4),
                 bound=f"<= {s['end_ratio']} (last step's lr over the peak: the configured cosine ends at "
                       "min_lr_ratio 0.1; a constant or half-height floor does not decay)",
                 source="recomputed", limit=s["end_ratio"], sense="<")
    pulls = m.value("pull_ratios", list)
    calls = m.value("loss_calls", int)
    if calls and pulls:
        pulls = sorted(float(v) for v in pulls)
        pull = pulls[len(pulls) // 2]
        checks.check("objective_pulls_large_errors", pull >= s["pull_min"], value=round(pull, 4),
                     bound=f">= {s['pull_min']} (median over sampled training batches of how the loss's gradient "
                           "on a prediction grows with its residual, relative to proportional: squared error 1.0, "
                           "absolute error about 0.1, a Huber loss with a small delta the same)",
                     source="recomputed", limit=s["pull_min"], sense=">")
    else:
        checks.check("objective_pulls_large_errors", True, value="no torch regression loss call to sample",
                     bound="checked where the loss goes through torch.nn.functional; the outcome bounds apply",
                     source="recomputed")
    report = m.value("report", dict)
    overall = float(report["all"]["mae"])
    rush = float(report[s["peak_station"]]["rush_bias"])
    keep["report"] = report
    checks.check("heldout_mae", overall <= s["mae_max"], value=round(overall, 3),
                 bound=f"<= {s['mae_max']} bikes/h over all stations (broken 3.40-3.48; the schedule "
                       "fixed: 2.33-2.57)", source="reported", limit=s["mae_max"], sense="<")
    checks.check("peak_station_rush_bias", rush >= s["rush_min"], value=round(rush, 3),
                 bound=f">= {s['rush_min']} bikes/h at {s['peak_station']}'s weekday rush hours (trained on "
                       "absolute error: -8 to -13 with the schedule fixed, -32 to -33 without; squared error: "
                       "-4 to -6)",
                 source="reported", limit=s["rush_min"], sense=">")


ROW = re.compile(r"^\s+(all stations|[a-z][a-z0-9-]+)\s+(-?\d+\.\d+)\s+(-?\d+\.\d+)%\s+([-+]\d+\.\d+)\s+([-+]\d+\.\d+)\s*$")


def printed_report(stdout):
    rows = {}
    for line in stdout.splitlines():
        mt = ROW.match(line)
        if mt:
            name = "all" if mt.group(1) == "all stations" else mt.group(1)
            rows[name] = {"mae": float(mt.group(2)), "wape": float(mt.group(3)) / 100,
                          "bias": float(mt.group(4)), "rush_bias": float(mt.group(5))}
    return rows


def readme_checks(run, measured, checks, s, seed_report):
    ok = run.get("exit_code") == 0 and not run.get("timed_out")
    checks.check("readme_run_exit_zero", ok, value=run.get("exit_code"), bound="exit 0", source="readme_run")
    rows = printed_report(run.get("stdout", ""))
    if "all" not in rows or s["peak_station"] not in rows:
        checks.check("readme_run_prints_report", False, value=len(rows), bound="the held-out table",
                     source="readme_run")
        return
    overall, rush = rows["all"]["mae"], rows[s["peak_station"]]["rush_bias"]
    checks.check("readme_run_heldout_mae", overall <= s["mae_max"], value=overall, bound=f"<= {s['mae_max']}",
                 source="readme_run", limit=s["mae_max"], sense="<")
    checks.check("readme_run_peak_station_rush_bias", rush >= s["rush_min"], value=rush,
                 bound=f">= {s['rush_min']}", source="readme_run", limit=s["rush_min"], sense=">")
    if seed_report is None:
        checks.check("readme_run_matches_measured_report", False, value="seed 0 not decided",
                     bound="printed table equals the measured seed-0 report", source="readme_run")
        return
    worst = 0.0
    for name, r in rows.items():
        for key in ("mae", "bias", "rush_bias"):
            worst = max(worst, abs(r[key] - float(seed_report[name][key])))
    checks.check("readme_run_matches_measured_report", worst <= 0.02, value=round(worst, 4),
                 bound="<= 0.02 (every printed mae, bias, rush-hour bias equals the measured seed-0 run)",
                 source="readme_run", limit=0.02, sense="<")
