"""The where-branch gradient family (wip_frontier_case_11): a loss selects between two branches with
torch.where, and the branch it does not select is not finite for some targets (y log(y / mu) at y = 0 is
0 * -inf). The forward value is right, but autograd multiplies the zero gradient of the unselected branch
by that branch's infinite local derivative, so every batch holding such a target gets a NaN gradient; a
trainer guard that skips non-finite updates (as AMP's GradScaler does) then drops those batches silently.

wip_frontier_case_11 iteration 2 adds a second, independent layer in the data pipeline: the loader yields
batches that each hold one site, so the deciding half also checks that the batches mix the sites (the
depot's rows are recognisable by their plugs-online value).

The measuring half runs the README configuration through the case's own entry points and records, for
every training forward: the batch's site and targets (from a wrapper around data.iterate_batches), the
model's output and the gradient the backward pass delivered to that output (a tensor hook), and how many
optimizer steps ran (a global step hook). The deciding half recomputes the gradient of the mean Poisson
deviance with respect to the forecast from the recorded targets and forecasts (float64, its own formula),
and reads the README run. torch is imported inside the functions, as verifylib does.
"""

import math
import re

# --- measuring (called by measure.py, beside the agent's code) -------------------------------------

MAX_STDOUT = 200_000


def run_recorded(rec, seed, load_config, run_fn, data, original_iter, other_holders, config, overrides=(),
                 plugs_column=4):
    """Train `config` at `seed` through run_fn, recording every training batch (targets, and the
    plugs-online column of its rows, which identifies the depot's rows), forward and update."""
    import contextlib
    import io

    import torch
    from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
    from torch.optim.optimizer import register_optimizer_step_post_hook

    state = {"depth": 0, "batches": [], "forwards": [], "steps": 0}

    def pre(module, args):
        state["depth"] += 1

    def post(module, args, out):
        state["depth"] -= 1
        if state["depth"] == 0 and module.training and torch.is_grad_enabled() and torch.is_tensor(out) \
                and out.requires_grad:
            slot = {"mu": out.detach().clone(), "grad": None}
            state["forwards"].append(slot)

            def keep(grad, slot=slot):
                slot["grad"] = grad.detach().clone()

            out.register_hook(keep)

    def count_step(optimizer, args, kwargs):
        state["steps"] += 1

    def recording_iter(*args, **kwargs):
        for item in original_iter(*args, **kwargs):
            tensors = [v for v in item if torch.is_tensor(v)] if isinstance(item, (tuple, list)) else []
            raw = next((v for v in tensors if v.dim() == 2), None)
            y = next((v for v in reversed(tensors) if v.dim() == 1), None)
            name = item[1] if isinstance(item, (tuple, list)) and len(item) > 1 else ""
            plugs = raw[:, plugs_column].detach().float() if raw is not None and raw.shape[1] > plugs_column \
                else torch.zeros(0)
            state["batches"].append({"site": str(name)[:40],
                                     "y": y.detach().clone().float().flatten() if y is not None else torch.zeros(0),
                                     "plugs": plugs.clone()})
            yield item

    error, report, stdout = None, None, io.StringIO()
    hooks = [register_module_forward_pre_hook(pre), register_module_forward_hook(post, always_call=True),
             register_optimizer_step_post_hook(count_step)]
    patched = [data, *other_holders()]
    for module in patched:
        module.iterate_batches = recording_iter
    try:
        cfg = load_config(config, [f"train.seed={seed}", "train.export_dir=", *overrides])
        with contextlib.redirect_stdout(stdout):
            result = run_fn(cfg)
        report = result[2] if isinstance(result, tuple) and len(result) >= 3 else None
    except Exception as exc:  # recorded: a run that raises fails the check that needs it
        error = f"{type(exc).__name__}: {exc}"[:1000]
    finally:
        for h in hooks:
            h.remove()
        for module in patched:
            module.iterate_batches = original_iter

    batches, forwards = state["batches"], state["forwards"]
    rec.put("error", error)
    rec.put("stdout", stdout.getvalue()[:MAX_STDOUT])
    rec.put("batch_sites", [b["site"] for b in batches])
    rec.put("n_forwards", len(forwards))
    rec.put("optimizer_steps", state["steps"])
    rec.put("report", _plain_report(report))
    n = min(len(batches), len(forwards))
    width = max([len(b["y"]) for b in batches] + [1])
    ys = torch.full((n, width), float("nan"))
    mus, grads = ys.clone(), ys.clone()
    rows = torch.zeros(n, dtype=torch.long)
    plugs = torch.full((n, width), float("nan"))
    got_grad = torch.zeros(n, dtype=torch.bool)
    for k in range(n):
        y, f = batches[k]["y"], forwards[k]
        mu = f["mu"].float().flatten()
        rows[k] = len(y)
        ys[k, :len(y)] = y
        p = batches[k]["plugs"].flatten()
        if len(p) == len(y):
            plugs[k, :len(y)] = p
        if mu.shape == y.shape:
            mus[k, :len(y)] = mu
            if f["grad"] is not None and f["grad"].numel() == len(y):
                grads[k, :len(y)] = f["grad"].float().flatten()
                got_grad[k] = True
    rec.save("training", {"y": ys, "mu": mus, "grad": grads, "rows": rows, "got_grad": got_grad, "plugs": plugs})


def _plain_report(report):
    """{site: {mae_kwh, wape, bias_kwh, poisson_dev}} of what run() returned, or None."""
    if not isinstance(report, dict):
        return None
    out = {}
    for name, m in list(report.items())[:20]:
        if isinstance(m, dict):
            out[str(name)[:40]] = {k: float(m[k]) for k in ("mae_kwh", "wape", "bias_kwh", "poisson_dev")
                                   if isinstance(m.get(k), (int, float))}
    return out


# --- deciding (called by decide.py; never imports the agent's code) ---------------------------------


def expected_gradient(y, mu):
    """d/d mu of mean_i 2 (y_i log(y_i / mu_i) - y_i + mu_i), row by row: 2 (1 - y / mu) / n (float64)."""
    n = y.shape[-1]
    return 2.0 * (1.0 - y / mu) / n


def decide_training(m, checks, settings):
    """Per-seed checks on the recorded README-configuration run (see decide.py for the bounds)."""
    import torch

    error = m.value("error")
    checks.check("readme_config_trains", error is None, value=error, bound="train.run returns", source="reported")
    sites = m.value("batch_sites", list)
    t = m.tensors("training", ["y", "mu", "grad", "rows", "got_grad", "plugs"])
    n_batches, n_forwards, steps = len(sites), int(m.number("n_forwards")), int(m.number("optimizer_steps"))
    least_batches = settings["epochs"] * settings["batches_per_site"] * len(settings["sites"])
    rows_streamed = int(t["rows"].sum().item()) if len(t["rows"]) else 0
    least_rows = settings["epochs"] * (settings["train_rows"] - len(settings["sites"]) * (settings["batch_size"] - 1))
    checks.check("every_row_streamed", n_batches >= least_batches and n_forwards == n_batches
                 and rows_streamed >= least_rows,
                 value={"batches": n_batches, "forwards": n_forwards, "rows": rows_streamed},
                 bound=f">= {least_batches} batches and >= {least_rows} rows ({settings['epochs']} epochs over the "
                       f"{settings['train_rows']} training rows, less what partial batches drop), one training "
                       "forward each (no rows dropped from the export)", source="reported")

    y, mu, grad = t["y"].double(), t["mu"].double(), t["grad"].double()
    rows = t["rows"]
    if len(rows) != n_batches or y.shape[0] != n_batches:
        checks.check("training_record_complete", False, value=[len(rows), n_batches], bound="one record per batch")
        return
    full = rows == settings["batch_size"]
    zero_rows = int(((y == 0) & full.unsqueeze(1)).sum().item())
    least = settings["epochs"] * (settings["depot_train_zeros"] - (settings["batch_size"] - 1))
    checks.check("closed_hours_reach_the_loss", zero_rows >= least, value=zero_rows,
                 bound=f">= {least} zero-energy rows streamed ({settings['epochs']} epochs x the depot's "
                       f"{settings['depot_train_zeros']} closed training hours, less what a partial batch drops): "
                       "the closed hours are real and stay in the training data",
                 limit=least - 0.5, sense=">")

    depot = (t["plugs"][full] == settings["depot_plugs"]).sum(dim=1) if full.any() else torch.zeros(0)
    pure = int(((depot == 0) | (depot == settings["batch_size"])).sum().item())
    n_full = int(full.sum().item())
    share = pure / n_full if n_full else 1.0
    checks.check("batches_mix_the_sites", share <= settings["pure_batch_share"],
                 value={"full_batches": n_full, "all_depot_or_depot_free": pure,
                        "mean_depot_rows_per_batch": round(depot.float().mean().item(), 2) if n_full else None},
                 bound=f"<= {settings['pure_batch_share']:.0%} of the full batches are all depot-fleet rows or hold "
                       f"none (rows with {settings['depot_plugs']} plugs online are the depot's, no other site has "
                       "that many): the loss is a mean over every site's rows, and batches that each hold one site "
                       "pull the model towards whichever site was streamed last (a random batch of 32 from the six "
                       "sites misses the depot with probability (5/6)^32 = 0.3%)",
                 limit=settings["pure_batch_share"], sense="<")

    has_zero = ((y == 0) & full.unsqueeze(1)).any(dim=1)
    missing = int((~t["got_grad"] | ~full).sum().item())
    nonfinite = int((~torch.isfinite(grad[full])).any(dim=1).sum().item()) if full.any() else 0
    checks.check("forecast_gradient_finite", missing == 0 and nonfinite == 0,
                 value={"batches_without_gradient": missing, "batches_with_nonfinite_gradient": nonfinite,
                        "of_which_hold_zero_targets": int((has_zero & ~torch.isfinite(grad).all(dim=1)).sum().item())},
                 bound="every training batch's loss delivers a finite gradient to the model's forecast", limit=0.5,
                 sense="<")

    expected = expected_gradient(y[full], mu[full])
    scale = expected.abs().amax(dim=1, keepdim=True).clamp_min(1e-12)
    err = ((grad[full] - expected).abs() / scale).nan_to_num(float("inf")).amax(dim=1)
    worst = err.max().item() if len(err) else float("inf")
    zero_err = err[has_zero[full]].max().item() if has_zero[full].any() else float("inf")
    checks.check("forecast_gradient_is_the_deviance_gradient", worst < settings["grad_rtol"],
                 value={"worst_relative_error": _shown(worst), "worst_on_batches_with_zero_targets": _shown(zero_err)},
                 bound=f"< {settings['grad_rtol']:g} of the batch's largest entry: the gradient each forecast "
                       "receives is 2 (1 - y / mu) / n, the mean Poisson deviance's, recomputed here in float64 "
                       "(closed hours included: 2 / n)", limit=settings["grad_rtol"], sense="<")
    checks.check("every_batch_updates_the_weights", steps == n_batches, value={"optimizer_steps": steps,
                                                                               "batches": n_batches},
                 bound="one optimizer step per training batch (none skipped)", source="reported")


def _shown(x):
    """A finite number as it is; inf (a non-finite or missing gradient) as text JSON can carry."""
    return x if math.isfinite(x) else "non-finite"


REPORT_LINE = re.compile(r"^\s+([a-z][\w-]*)\s+(-?[\d.]+)\s+(-?[\d.]+)%\s+(-?[\d.]+)\s+(-?[\d.]+)\s*$")


def printed_report(stdout):
    """{site: (mae, wape %, bias, deviance)} from the README run's held-out table."""
    out = {}
    for line in stdout.splitlines():
        hit = REPORT_LINE.match(line)
        if hit:
            out[hit.group(1)] = tuple(float(hit.group(k)) for k in range(2, 6))
    return out


def readme_checks(run, measured, checks, settings, seed=0):
    """The README's own command printed the held-out table of the run the measuring half recorded."""
    m = measured[seed]
    report = m.value("report")
    printed = printed_report(str(run.get("stdout", "")))
    if not isinstance(report, dict):
        checks.check("readme_run_matches_measured_report", False, value="no report measured",
                     bound="the measured run returns its held-out report", source="readme_run")
        return
    worst, missing = 0.0, sorted(set(settings["sites"]) - set(printed))
    for site in settings["sites"]:
        if site in printed and isinstance(report.get(site), dict):
            mae, wape, bias, dev = printed[site]
            r = report[site]
            diffs = [abs(mae - r.get("mae_kwh", math.inf)) / 0.01, abs(wape - 100 * r.get("wape", math.inf)) / 0.1,
                     abs(bias - r.get("bias_kwh", math.inf)) / 0.01, abs(dev - r.get("poisson_dev", math.inf)) / 0.001]
            worst = max(worst, *diffs)
        elif site not in missing:
            missing.append(site)
    checks.check("readme_run_matches_measured_report", not missing and worst <= 2.0,
                 value={"missing_sites": missing, "worst_in_last_digits": worst},
                 bound="every site's printed mae, wape, bias and deviance equal the measured seed-0 run's within 2 "
                       "units of the last printed digit (the README run is that configuration and seed)",
                 source="readme_run", limit=2.0 + 1e-9, sense="<")
