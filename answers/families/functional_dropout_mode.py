"""The functional-dropout-mode family (frontier_case_14): a module written with the functional API
calls ``F.dropout(x, p)`` without ``training=``, whose default is True, so the dropout keeps running
after ``model.eval()``: at every validation, evaluation, export and inference.

The measuring half (``watch_fit``) runs the agent's training with a global forward pre-hook and
keeps the inputs of the first validation's top-level forwards (the features the model is scored on);
it then probes the returned model: its weights, two eval-mode forwards of 128 validation rows under
different global RNG states, and one training-mode forward with its RNG state. The deciding half
recomputes both forwards with its own copy of the architecture (``check_forward_modes``), compares
the validation features with a rebuild the case supplies (``check_features_against``), and reads
the README run's epoch lines (``check_epoch_lines``). torch is imported inside the functions.
"""

import math
import re

# --- measuring (called by measure.py, beside the agent's code) -------------------------------------

PROBE_ROWS = 128


def watch_fit(rec, start, n_val):
    """``start()`` returns a no-argument callable that trains and returns train.run's dict
    (history, best, model). Keeps the first ``n_val`` validation rows and probes the model."""
    import torch
    from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook

    state = {"depth": 0, "rows": 0}
    val_inputs = []

    def pre(module, inputs):
        if (state["depth"] == 0 and not torch.is_grad_enabled() and not module.training
                and state["rows"] < n_val and inputs and torch.is_tensor(inputs[0])):
            val_inputs.append(inputs[0].detach().clone())
            state["rows"] += inputs[0].shape[0]
        state["depth"] += 1

    def post(module, inputs, output):
        state["depth"] -= 1

    fit = start()
    handles = [register_module_forward_pre_hook(pre), register_module_forward_hook(post, always_call=True)]
    try:
        out = fit()
    finally:
        for h in handles:
            h.remove()
    history = [{**{k: v for k, v in row.items() if k not in ("confusion", "step")},
                "step": row.get("epoch"), "optimizer_step": row.get("step")} for row in out["history"]]
    rec.put("history", history)
    rec.put("backward_values_by_step", [])  # the log prints epoch means, not per-step losses (see check_epoch_lines)
    rec.put("validation_rows_recorded", state["rows"])
    if not val_inputs:
        return
    x_val = torch.cat(val_inputs)[:n_val]
    rec.save("validation_input", {"x": x_val})
    model = out["model"]
    weights = {"weight." + k: v.detach().clone() for k, v in model.state_dict().items()}
    x = x_val[:PROBE_ROWS]
    model.eval()
    with torch.no_grad():
        torch.manual_seed(11)
        eval_a = model(x)
        torch.manual_seed(12)
        eval_b = model(x)
    model.train()
    torch.manual_seed(13)
    rng = torch.get_rng_state()
    with torch.no_grad():
        train_out = model(x)
    rec.save("probe", {"input": x, "eval_a": eval_a, "eval_b": eval_b, "train_out": train_out,
                       "rng_state": rng, **weights})


# --- deciding (called by decide.py; never imports the agent's code) -------------------------------


def check_forward_modes(m, checks, model, tol):
    """Recomputed from the probe: the eval-mode forward equals ``model`` (the case's architecture,
    no dropout in eval mode) with the recorded weights, under both RNG states; the training-mode
    forward equals ``model`` in training mode from the recorded RNG state (dropout still trains)."""
    import torch

    probe = m.tensors("probe")
    weights = {k[len("weight."):]: v for k, v in probe.items() if k.startswith("weight.")}
    try:
        model.load_state_dict(weights)
        loaded = True
    except (RuntimeError, KeyError) as exc:
        loaded = str(exc)[:300]
    checks.check("model_is_the_case_architecture", loaded is True, value=loaded if loaded is not True else "loaded",
                 bound="the returned model's state_dict loads into the case's SEConvNet")
    if loaded is not True:
        return
    x = probe["input"]
    model.eval()
    with torch.no_grad():
        want = model(x)
    gaps = {k: (probe[k].double() - want.double()).abs().nan_to_num(math.inf).max().item() for k in ("eval_a", "eval_b")}
    worst = max(gaps.values())
    checks.check("eval_forward_has_no_dropout", worst < tol, value=gaps,
                 bound=f"< {tol} (both eval-mode forwards, under different RNG states, equal the "
                       "architecture's deterministic eval forward)", limit=tol, sense="<")
    model.train()
    torch.set_rng_state(probe["rng_state"])
    with torch.no_grad():
        want_train = model(x)
    gap = (probe["train_out"].double() - want_train.double()).abs().nan_to_num(math.inf).max().item()
    checks.check("training_forward_keeps_dropout", gap < tol, value=gap,
                 bound=f"< {tol} (the training-mode forward equals the architecture's, every dropout "
                       "at the recipe's rate, from the recorded RNG state)", limit=tol, sense="<")


def check_features_against(m, checks, expected, rows, bins, tol):
    """Recomputed: the validation features on ``rows`` (a boolean mask over the validation split)
    and the first ``bins`` frequency bins are within ``tol`` (mean absolute difference, standardized
    units) of ``expected``, the case's own rebuild."""
    import torch

    got = m.tensors("validation_input").get("x")
    expected = torch.as_tensor(expected)
    if got is None or tuple(got.shape) != tuple(expected.shape):
        checks.check("validation_features_band_limited", False,
                     value={"shape": None if got is None else list(got.shape)}, bound=f"shape {list(expected.shape)}")
        return
    mask = torch.as_tensor(rows, dtype=torch.bool)
    diff = (got.double() - expected.double())[mask][:, :bins, :].abs().nan_to_num(math.inf)
    value = diff.mean().item()
    checks.check("validation_features_band_limited", value < tol,
                 value={"mean_abs_diff": value, "rows": int(mask.sum().item())},
                 bound=f"< {tol} (the resampled recordings' features, below the folding band's edge, equal a "
                       "rebuild with an anti-aliased change of clock)", limit=tol, sense="<")


def epochs_as_steps(stdout, epochs):
    """The README run's epoch rows in verifylib's ``logged_rows`` shape ({epoch: {label: number}}; the
    lines 'epoch N | ...' read as 'step N | ...', so 'val f1 x' is the label 'val f'); empty unless the
    run printed exactly epochs 1..``epochs``."""
    from verifylib import logged_rows

    rows = logged_rows(re.sub(r"(?m)^\s*epoch(?=\s+\d+\s*\|)", "step", stdout))
    return rows if sorted(rows) == list(range(1, epochs + 1)) else {}


def check_epoch_lines(run, m, checks, fields, epochs):
    """readme_run: the README command printed ``epochs`` epoch rows and each printed field equals the
    measuring process's history of the same seed (verifylib's ``check_printed_rows_match_measured``;
    the history is recorded with ``step`` = epoch by ``watch_fit``; the per-step backward comparison
    does not apply: a printed train loss is an epoch mean)."""
    from verifylib import check_printed_rows_match_measured

    check_printed_rows_match_measured(checks, epochs_as_steps(run.get("stdout", ""), epochs), m, fields, 0,
                                      f"{epochs} printed epoch rows equal the measured seed's history")
