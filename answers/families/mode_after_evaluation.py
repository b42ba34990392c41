"""The mode-after-evaluation family (frontier_case_07): after a periodic validation during
training, part of the model is left in eval mode for the rest of the fit, so its dropout (or any
other training-only layer) silently stops. The top-level module reads ``training == True``.

The measuring half watches the agent's training from outside with global module hooks and an
optimizer-step hook (``watch_training``): for every forward of a Dropout or BatchNorm layer under
autograd it records the mode it ran in, and for the first training forward after the first
validation it saves the weights, the input, the global RNG state and the output; the inputs of the
first validation's forwards are saved too (the features the model is scored on). A second, short fit
with a frozen encoder (``watch_frozen_batchnorm``) counts the frozen BatchNorm calls by mode. The deciding half
recomputes that forward in training mode with its own copy of the model (``recompute_probe``) and
reads the README run (``check_readme``). torch is imported inside the functions, as verifylib does.
"""

import math

from verifylib import Unreadable, logged_rows

# --- measuring (called by measure.py, beside the agent's code) -------------------------------------


def watch_training(rec, start, probe_after_steps):
    """Run ``start()`` (returns a no-argument callable that trains and returns (model, history)) under
    hooks; record layer modes per optimizer step, the probe forward after ``probe_after_steps`` steps,
    and the returned history."""
    import torch
    import torch.nn as nn
    from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
    from torch.optim.optimizer import register_optimizer_step_post_hook

    state = {"steps": 0, "depth": 0, "probe": None, "probe_done": False}
    validation_inputs = []  # the inputs of the first validation's top-level forwards, in order
    modes = {"dropout_train": 0, "dropout_eval": 0, "batchnorm_train": 0, "batchnorm_eval": 0}
    first_eval_dropout_step = []

    def on_step(optimizer, args, kwargs):
        state["steps"] += 1

    def pre(module, inputs):
        grad = torch.is_grad_enabled()
        if state["depth"] == 0 and grad and state["steps"] == probe_after_steps and not state["probe_done"]:
            x = inputs[0] if inputs and torch.is_tensor(inputs[0]) else None
            if x is not None:
                state["probe"] = {"module": module, "input": x.detach().clone(), "rng": torch.get_rng_state(),
                                  "weights": {k: v.detach().clone() for k, v in module.state_dict().items()}}
        if state["depth"] == 0 and not grad and state["steps"] == probe_after_steps and inputs and torch.is_tensor(inputs[0]):
            validation_inputs.append(inputs[0].detach().clone())
        state["depth"] += 1
        if grad and isinstance(module, nn.Dropout):
            modes["dropout_train" if module.training else "dropout_eval"] += 1
            if not module.training and not first_eval_dropout_step:
                first_eval_dropout_step.append(state["steps"])
        if grad and isinstance(module, nn.modules.batchnorm._BatchNorm):
            modes["batchnorm_train" if module.training else "batchnorm_eval"] += 1

    def post(module, inputs, output):
        state["depth"] -= 1
        probe = state["probe"]
        if state["depth"] == 0 and probe is not None and probe["module"] is module and not state["probe_done"]:
            if torch.is_tensor(output):
                rec.save("probe", {"input": probe["input"], "rng_state": probe["rng"], "output": output.detach(),
                                   **{"weight." + k: v for k, v in probe["weights"].items()}})
                state["probe_done"] = True

    train = start()
    handles = [register_module_forward_pre_hook(pre), register_module_forward_hook(post, always_call=True),
               register_optimizer_step_post_hook(on_step)]
    try:
        _, history = train()
    finally:
        for h in handles:
            h.remove()
    rec.put("optimizer_steps", state["steps"])
    rec.put("layer_modes", modes)
    rec.put("first_eval_dropout_step", first_eval_dropout_step[0] if first_eval_dropout_step else None)
    rec.put("probe_saved", state["probe_done"])
    rec.put("validation_inputs_recorded", len(validation_inputs))
    if validation_inputs:
        try:
            rec.save("validation_input", {"x": torch.cat(validation_inputs)})
        except RuntimeError:  # forwards of different widths: not the case's features
            rec.save("validation_input", {"x": validation_inputs[0]})
    rows = []
    for row in history or []:
        try:
            rows.append({"step": int(row["step"]), "train_loss": float(row["train"]["loss"]),
                         "train_acc": float(row["train"]["acc"]), "val_loss": float(row["val"]["loss"]),
                         "val_acc": float(row["val"]["acc"])})
        except Exception:
            continue
    rec.put("history", rows)


def watch_frozen_batchnorm(rec, start):
    """Run ``start()`` (as in ``watch_training``) for a fit that freezes part of the model, and count the
    BatchNorm calls in training forwards whose parameters are all frozen, by the mode they ran in: a
    frozen part keeps its statistics only in eval mode."""
    import torch
    import torch.nn as nn
    from torch.nn.modules.module import register_module_forward_pre_hook

    counts = {"train_mode_calls": 0, "eval_mode_calls": 0}

    def pre(module, inputs):
        if torch.is_grad_enabled() and isinstance(module, nn.modules.batchnorm._BatchNorm):
            params = list(module.parameters())
            if params and not any(p.requires_grad for p in params):
                counts["train_mode_calls" if module.training else "eval_mode_calls"] += 1

    train = start()
    handle = register_module_forward_pre_hook(pre)
    try:
        train()
    finally:
        handle.remove()
    rec.put("frozen_batchnorm_modes", counts)


# --- deciding (called by decide.py; never imports the agent's code) ---------------------------------


def check_layer_modes(m, checks, steps, dropout_per_step, batchnorm_per_step):
    """Reported: every Dropout and BatchNorm call under autograd ran in training mode, all ``steps`` steps."""
    n_steps = int(m.number("optimizer_steps"))
    modes = m.value("layer_modes", dict)
    checks.check("training_ran_readme_configuration", n_steps == steps, value=n_steps, bound=f"== {steps} optimizer steps",
                 source="reported")
    d_eval, d_train = int(modes.get("dropout_eval", -1)), int(modes.get("dropout_train", -1))
    checks.check("dropout_trains_after_validation", d_eval == 0 and d_train == dropout_per_step * steps,
                 value={"eval_mode_calls": d_eval, "train_mode_calls": d_train,
                        "first_step_in_eval_mode": m.values.get("first_eval_dropout_step")},
                 bound=f"0 eval-mode Dropout calls in training forwards, {dropout_per_step * steps} in training mode "
                       "(bug: every Dropout stays in eval mode after the first validation)",
                 source="reported")
    b_eval, b_train = int(modes.get("batchnorm_eval", -1)), int(modes.get("batchnorm_train", -1))
    checks.check("batchnorm_trains_after_validation", b_eval == 0 and b_train == batchnorm_per_step * steps,
                 value={"eval_mode_calls": b_eval, "train_mode_calls": b_train},
                 bound=f"0 eval-mode BatchNorm calls in training forwards, {batchnorm_per_step * steps} in training mode",
                 source="reported")


def check_frozen_batchnorm(m, checks, frozen_calls):
    """Reported: in a fit that starts with a frozen encoder, every BatchNorm call of a training forward
    whose parameters are frozen ran in eval mode (``frozen_calls`` of them), so the frozen part kept its
    statistics through the validations (a fix that restores training with a plain ``model.train()``
    moves them)."""
    modes = m.value("frozen_batchnorm_modes", dict)
    f_eval, f_train = int(modes.get("eval_mode_calls", -1)), int(modes.get("train_mode_calls", -1))
    checks.check("frozen_encoder_batchnorm_stays_in_eval", f_train == 0 and f_eval == frozen_calls,
                 value={"eval_mode_calls": f_eval, "train_mode_calls": f_train},
                 bound=f"0 training-mode calls of a frozen BatchNorm in training forwards, {frozen_calls} in eval mode "
                       "(the warm-start fit's frozen encoder)",
                 source="reported")


def recompute_probe(m, checks, model, tol, probe_step):
    """Recomputed: the first training forward after the first validation is the training-mode forward
    of ``model`` (the decider's own copy) with the recorded weights, input and RNG state."""
    import torch

    art = m.tensors("probe")
    weights = {k[len("weight."):]: v for k, v in art.items() if k.startswith("weight.")}
    missing, unexpected = model.load_state_dict(weights, strict=False)
    shapes_ok = not missing and not unexpected
    checks.check("model_is_the_case_architecture", shapes_ok,
                 value={"missing": list(missing)[:6], "unexpected": list(unexpected)[:6]},
                 bound="the probed model's state_dict has exactly the case's LeafMLP keys")
    if not shapes_ok:
        return
    x, out = art["input"], art["output"]
    rng = torch.get_rng_state()
    torch.set_rng_state(art["rng_state"])
    model.train()
    with torch.no_grad():
        train_out = model(x)
    torch.set_rng_state(rng)
    model.eval()
    with torch.no_grad():
        eval_out = model(x)
    gap = _max_diff(out, train_out)
    checks.check("training_forward_after_validation_is_train_mode", gap < tol,
                 value={"vs_train_mode": gap, "vs_eval_mode": _max_diff(out, eval_out)},
                 bound=f"< {tol} (step {probe_step + 1}'s training forward equals this file's training-mode forward of "
                       "the same weights, input and RNG state; bug: it is the dropout-free forward)",
                 limit=tol, sense="<")


def _max_diff(a, b):
    if a.shape != b.shape:
        return math.inf
    return (a.double() - b.double()).abs().nan_to_num(math.inf).max().item()


def check_readme(run, measured, checks, readme_seed, fields):
    """readme_run: every validation row the README command printed equals the measuring process's run of
    the same seed (``fields``: {printed label: (history key, tolerance)})."""
    m = measured.get(readme_seed)
    rows = logged_rows(run.get("stdout", ""))
    history = {}
    if m is not None:
        try:
            history = {int(h["step"]): h for h in m.value("history", list) if isinstance(h, dict) and "step" in h}
        except Unreadable:
            history = {}
    bad = {}
    for s in sorted(rows):
        h = history.get(s, {})
        for label, (key, tol) in fields.items():
            printed, got = rows[s].get(label, math.nan), h.get(key)
            if not isinstance(got, (int, float)) or not abs(printed - got) < tol:
                bad[f"step {s} {label}"] = {"printed": printed, "measured": got}
    if set(rows) != set(history):
        bad["steps"] = {"printed": sorted(rows)[:12], "measured": sorted(history)[:12]}
    checks.check("readme_run_matches_measured_training", bool(rows) and not bad,
                 value=dict(list(bad.items())[:8]) or "all printed rows match",
                 bound="every printed validation row equals the verifier's run of the same seed and settings",
                 source="readme_run")
