"""hard_case_07, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-h07-bca20cbe945072fc

Runs the agent's train.run(train.make_config("configs/experiment.toml", ["seed=<s>"])), the
configuration the README runs (SpectralCNN, 8 epochs of 32 AdamW steps, batched validation
every epoch, three re-validations at the end), and watches it from outside the agent's code,
with global module hooks and optimizer-step hooks:

- every outermost forward of a module is classified by what follows it: a forward whose
  output an optimizer step follows is a training forward, any other is a measuring
  (validation / inference) forward. For each one it records how many Dropout and BatchNorm
  calls ran in training mode or in eval mode, whether the call changed any buffer, and the
  batch size of its input;
- after the last optimizer step of every epoch (steps 32, 64, ...) the model's full
  state_dict (weights and BatchNorm buffers), as an artifact: the model that epoch's
  validation is meant to measure;
- for the first training batch of every epoch: the state before the forward, the input,
  the output and the buffers after it, as an artifact;
- the returned model's state_dict, the returned history's validation losses, the printed
  per-epoch and re-validated losses (and the printed text), the configuration's validation
  mode and batch size, and the Dropout/BatchNorm modules the model holds.
"""

import io
import re
import sys
from contextlib import redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

STEPS_PER_EPOCH = 32  # n_train 2048 / batch_size 64 in configs/experiment.toml
CONFIG = "configs/experiment.toml"
N_DROPOUT, N_BATCHNORM = 2, 3  # SpectralCNN: two Dropout layers, three BatchNorm1d layers
NUMBER = r"(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|nan|inf)"


class Tee(io.TextIOBase):
    def __init__(self, *streams):
        self.streams = streams

    def write(self, s):
        for st in self.streams:
            st.write(s)
        return len(s)

    def flush(self):
        for st in self.streams:
            st.flush()


def _first_tensor(out):
    import torch

    if torch.is_tensor(out):
        return out
    if isinstance(out, (list, tuple)):
        for o in out:
            t = _first_tensor(o)
            if t is not None:
                return t
    if isinstance(out, dict):
        return _first_tensor(list(out.values()))
    return None


def _history_val_losses(history):
    """The returned history's per-epoch validation losses, or None when it has no such shape."""
    try:
        losses = []
        for row in history:
            val = row["val"]
            losses.append(float(val["loss"] if isinstance(val, dict) else val))
        return losses
    except Exception:
        return None


def measure(seed, rec):
    import torch
    import torch.nn as nn
    from torch.nn.modules.batchnorm import _BatchNorm
    from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
    from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

    state = {"depth": 0, "event": None, "last": None, "steps": 0, "root": None, "probe_epochs": set()}
    events, epoch_states, probes = [], {}, {}

    def clone_state(module):
        return {k: v.detach().clone() for k, v in module.state_dict().items()}

    def pre(module, args):
        if state["depth"] == 0:
            ev = {"grad": torch.is_grad_enabled(), "stepped": False, "dropout_train": 0, "dropout_eval": 0,
                  "bn_train": 0, "bn_eval": 0, "buffers": {n: b.detach().clone() for n, b in module.named_buffers()},
                  "probe": None, "batch": None}
            epoch = state["steps"] // STEPS_PER_EPOCH + 1
            x = _first_tensor(args)
            ev["batch"] = int(x.shape[0]) if x is not None and x.dim() > 0 else None
            if (ev["grad"] and state["steps"] % STEPS_PER_EPOCH == 0 and epoch not in state["probe_epochs"]
                    and x is not None):
                ev["probe"] = {"epoch": epoch, "state": clone_state(module), "x": x.detach().clone()}
            state["event"], state["root"] = ev, module
        else:
            ev = state["event"]
            if ev is not None:
                if isinstance(module, nn.Dropout) and module.p > 0:
                    ev["dropout_train" if module.training else "dropout_eval"] += 1
                elif isinstance(module, _BatchNorm):
                    ev["bn_train" if module.training else "bn_eval"] += 1
        state["depth"] += 1

    def post(module, args, out):
        state["depth"] -= 1
        if state["depth"] != 0:
            return
        ev, state["event"] = state["event"], None
        if ev is None:
            return
        after = dict(module.named_buffers())
        before = ev.pop("buffers")
        ev["buffers_changed"] = set(before) != set(after) or any(not torch.equal(before[n], after[n]) for n in before)
        if ev["probe"] is not None:
            y = _first_tensor(out)
            if y is None:
                ev["probe"] = None
            else:
                ev["probe"]["out"] = y.detach().clone()
                ev["probe"]["buffers_after"] = {n: b.detach().clone() for n, b in module.named_buffers()}
        events.append(ev)
        state["last"] = ev

    def on_step_pre(opt, args, kwargs):
        ev = state["last"]
        if ev is not None and not ev["stepped"]:
            ev["stepped"] = True
            if ev["probe"] is not None and ev["probe"]["epoch"] not in probes:
                probes[ev["probe"]["epoch"]] = ev["probe"]
                state["probe_epochs"].add(ev["probe"]["epoch"])

    def on_step_post(opt, args, kwargs):
        state["steps"] += 1
        if state["steps"] % STEPS_PER_EPOCH == 0 and state["root"] is not None:
            epoch_states[state["steps"] // STEPS_PER_EPOCH] = clone_state(state["root"])

    handles = [register_module_forward_pre_hook(pre), register_module_forward_hook(post, always_call=True),
               register_optimizer_step_pre_hook(on_step_pre), register_optimizer_step_post_hook(on_step_post)]
    printed = io.StringIO()
    try:
        train = import_workspace_module("train")
        run_fn, make_config = require(train, "run", "make_config")
        cfg = make_config(CONFIG, [f"seed={seed}"])
        with redirect_stdout(Tee(printed, sys.stderr)):
            result = run_fn(cfg)
    finally:
        for h in handles:
            h.remove()
    model, history = result[0], result[1]
    trainer_cfg, eval_cfg = getattr(cfg, "trainer", None), getattr(cfg, "eval", None)
    epochs = int(getattr(trainer_cfg, "epochs", 0))
    rec.put("eval_mode", str(getattr(eval_cfg, "mode", "")))
    rec.put("eval_batch_size", int(getattr(eval_cfg, "batch_size", 0)))

    training = [e for e in events if e["stepped"]]
    measuring = [e for e in events if not e["stepped"]]
    rec.put("epochs", epochs)
    rec.put("optimizer_steps", state["steps"])
    rec.put("training_forwards", len(training))
    rec.put("training_forwards_not_in_train_mode",
            sum(e["dropout_eval"] > 0 or e["bn_eval"] > 0 or e["dropout_train"] < N_DROPOUT or e["bn_train"] < N_BATCHNORM
                for e in training))
    rec.put("measuring_forwards", len(measuring))
    rec.put("measuring_forwards_with_training_mode_layers",
            sum(e["dropout_train"] > 0 or e["bn_train"] > 0 for e in measuring))
    rec.put("measuring_forwards_that_changed_buffers", sum(bool(e["buffers_changed"]) for e in measuring))
    rec.put("measuring_batch_sizes", sorted({e["batch"] for e in measuring if e["batch"] is not None}))

    modules = list(model.modules()) if isinstance(model, nn.Module) else []
    rec.put("dropout_p", [float(m.p) for m in modules if isinstance(m, nn.Dropout)])
    rec.put("batchnorm_tracking", [bool(m.track_running_stats) for m in modules if isinstance(m, _BatchNorm)])
    rec.put("history_val_losses", _history_val_losses(history))

    text = printed.getvalue()
    rec.put("printed_text", text[-20000:])
    epoch_lines = re.findall(r"^epoch\s+(\d+)\s*\|.*?val loss " + NUMBER, text, re.M)
    rec.put("printed_val_losses", {int(e): float(v) for e, v in epoch_lines})
    reval = re.search(r"^best checkpoint re-validated:(.*)$", text, re.M)
    rec.put("printed_revalidated_losses",
            None if reval is None else [float(v) for v in re.findall(r"loss " + NUMBER, reval.group(1))])

    rec.put("epoch_states", sorted(epoch_states))
    for epoch, sd in epoch_states.items():
        rec.save(f"epoch_{epoch}", sd)
    rec.put("probe_epochs", sorted(probes))
    for epoch, p in probes.items():
        tensors = {f"before.{k}": v for k, v in p["state"].items()}
        tensors.update({f"after.{k}": v for k, v in p["buffers_after"].items()})
        tensors.update({"x": p["x"], "out": p["out"]})
        rec.save(f"train_batch_{epoch}", tensors)
    rec.save("returned", model.state_dict())


measure_main(measure)
