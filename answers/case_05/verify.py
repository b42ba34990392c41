"""case_05 verifier: the dashboard's "log10 upd/param" must be the update the optimizer
really applied. Hooks around every optimizer.step() snapshot the parameters just before
the step and diff them just after; for every logged step and every logged weight matrix
the logged value must be within 0.05 (log10 units) of log10(scale(delta) / scale(param)),
where scale is the standard deviation (what the repo logs) or the RMS (a norm-based
variant), whichever the agent chose.

lr * grad is not AdamW's step: AdamW moves each weight by lr * m_hat / (sqrt(v_hat) + eps)
plus the decoupled decay lr * wd * w, whose scale does not follow the gradient's, so the
gap between the two drifts over training (about 1.5 to 2.5 in log10 here). No constant
or per-tensor rescaling of lr * grad can stay within 0.05 on every step. The run keeps
the repo's own AdamW, weight decay and warmup+cosine schedule; both are checked to be
active so the comparison is made where they matter.
"""

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from verifylib import SEEDS, Checks, setup  # noqa: E402

setup()
import torch  # noqa: E402
from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook  # noqa: E402

import train  # noqa: E402  (the agent's train.py)

TOL = 0.05
STEPS = 120
before, actual, seen = {}, [], []  # snapshots, per-step true ratios, per-step optimizer settings


def _pre(opt, args, kwargs):
    before.clear()
    for group in opt.param_groups:
        for p in group["params"]:
            before[p] = p.detach().clone()


def _post(opt, args, kwargs):
    row = {}
    for group in opt.param_groups:
        for p in group["params"]:
            if p.ndim == 2:
                d, w = p.detach() - before[p], before[p]
                row[p] = (math.log10(d.std().item() / w.std().item()) if d.std() > 0 else -math.inf,
                          math.log10(d.pow(2).mean().sqrt().item() / w.pow(2).mean().sqrt().item())
                          if d.abs().max() > 0 else -math.inf)
    actual.append(row)
    seen.append({"type": type(opt).__name__, "lr": [g["lr"] for g in opt.param_groups],
                 "wd_on_matrices": all(g.get("weight_decay", 0) > 0 for g in opt.param_groups
                                       for p in g["params"] if p.ndim == 2)})


register_optimizer_step_pre_hook(_pre)
register_optimizer_step_post_hook(_post)

checks = Checks()
for seed in SEEDS:
    with checks.seed(seed):
        actual.clear()
        seen.clear()
        cfg = train.Config(seed=seed, steps=STEPS, log_every=1)
        model, history = train.train(cfg)
        names = {p: n for n, p in model.named_parameters()}
        matrices = sorted(n for n, p in model.named_parameters() if p.ndim == 2)

        lrs = [s["lr"][0] for s in seen]
        checks.check("optimizer_is_adamw", {s["type"] for s in seen} == {"AdamW"} and len(seen) == STEPS,
                     value={"types": sorted({s["type"] for s in seen}), "steps": len(seen)}, bound=f"AdamW, {STEPS} steps")
        checks.check("lr_schedule_active", len(set(lrs)) >= 10 and max(lrs) >= 3 * min(lrs),
                     value={"distinct": len(set(lrs)), "min": min(lrs), "max": max(lrs)}, bound=">= 10 values, max >= 3 min")
        checks.check("weight_decay_active", all(s["wd_on_matrices"] for s in seen), value=cfg.weight_decay,
                     bound="> 0 on every weight matrix")

        logged_steps = [row.get("step") for row in history]
        checks.check("every_step_logged", logged_steps == list(range(1, STEPS + 1)),
                     value=f"{len(logged_steps)} rows, first {logged_steps[:3]}", bound=f"steps 1..{STEPS}")
        worst, where, missing = 0.0, None, []
        for row in history:
            step, logged = row["step"], row.get("update_ratio", {})
            missing += [f"{step}:{n}" for n in matrices if n not in logged]
            truth = {names[p]: v for p, v in actual[step - 1].items()}
            for name, value in logged.items():
                if name not in truth:
                    continue
                err = min(abs(value - t) for t in truth[name])
                if not err <= worst:  # also catches NaN
                    worst, where = err, {"step": step, "param": name, "logged": round(value, 3),
                                         "actual_std": round(truth[name][0], 3)}
        checks.check("all_weight_matrices_logged", not missing, value=missing[:5], bound=f"{matrices} on every step")
        checks.check("logged_ratio_matches_actual_update", worst < TOL, value={"max_abs_err": worst, "at": where},
                     bound=f"< {TOL} log10 on every step")
checks.finish()
