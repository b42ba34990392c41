"""The validation-in-training-mode family (case_07, hard_case_07): validation runs with the model in
training mode, so dropout draws masks and BatchNorm normalizes with each validation batch's statistics
and folds them into its running mean/var. The logged validation loss is not the loss of the model being
validated, repeated validations of one checkpoint disagree, and validation changes the model it measures.

Both cases train with AdamW for 8 epochs of 32 steps, validate every epoch, re-validate the best
checkpoint three times and are verified the same way; they differ in their entry points
(train.Config/train.train against train.make_config/train.run), the model (FaultNet against
SpectralCNN) and its data, hard_case_07's batched-validation setting, and the wording of the bounds.
The measuring half watches the training from outside with global module and optimizer-step hooks
(``watch_training``); the deciding half recomputes eval-mode losses and the first BatchNorm's update
from the recorded states with the case's own model (``CaseModel``) and reads the README run
(``PrintedRun``, ``check_readme_against_measurement``). torch is imported inside the functions, as
verifylib does, so importing this module from measure.py loads nothing before ``measure_main`` has set
the process up.
"""

import io
import re
import sys
from contextlib import redirect_stdout

from verifylib import Unreadable, numbers

EPOCHS, STEPS_PER_EPOCH = 8, 32  # the README's configuration: 2048 training rows in batches of 64

# --- measuring (called by measure.py, beside the agent's code) -------------------------------------

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


def watch_training(rec, start, configured, n_dropout, n_batchnorm, record_batch_sizes=False):
    """Run the agent's training once, watched from outside, and record what the decider needs.

    ``start()`` reaches the case's entry points and returns (cfg, a no-argument callable that trains and
    returns (model, history)); it runs with the hooks in place. ``configured(cfg)`` returns the
    configuration's epoch count (recording anything else the case reads from it). Every outermost
    forward is a training forward when an optimizer step follows it, else a measuring one; a training
    forward must run ``n_dropout`` Dropout and ``n_batchnorm`` BatchNorm calls in training mode.
    ``record_batch_sizes`` also records the batch sizes of the measuring forwards."""
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
        cfg, train = start()
        with redirect_stdout(Tee(printed, sys.stderr)):
            result = train()
    finally:
        for h in handles:
            h.remove()
    model, history = result[0], result[1]
    epochs = configured(cfg)

    training = [e for e in events if e["stepped"]]
    measuring = [e for e in events if not e["stepped"]]
    rec.put("epochs", epochs)
    rec.put("optimizer_steps", state["steps"])
    rec.put("training_forwards", len(training))
    rec.put("training_forwards_not_in_train_mode",
            sum(e["dropout_eval"] > 0 or e["bn_eval"] > 0
                or e["dropout_train"] < n_dropout or e["bn_train"] < n_batchnorm for e in training))
    rec.put("measuring_forwards", len(measuring))
    rec.put("measuring_forwards_with_training_mode_layers",
            sum(e["dropout_train"] > 0 or e["bn_train"] > 0 for e in measuring))
    rec.put("measuring_forwards_that_changed_buffers", sum(bool(e["buffers_changed"]) for e in measuring))
    if record_batch_sizes:
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


# --- deciding (called by decide.py; never imports the agent's code) -------------------------------

DROPOUT, MOMENTUM = 0.3, 0.1
LOSS_TOL = 1e-4        # eval-mode loss, batched vs whole split: ~1e-7 apart; the bug: >= 1e-2
PRINT_TOL = 1e-4       # 4 printed digits
BUFFER_TOL = 1e-4
MIN_TRAIN_OUT_DIFF = 1e-3
README_SEED = 0        # the README's command runs the default configuration, seed 0: the measuring process's seed-0 run
README_TOL = 1.5e-4    # a printed 4-digit loss against a recomputed one: rounding 5e-5 + LOSS_TOL
REPEAT_TOL = 1.01e-4   # printed 4-digit losses of one computation: equal, or one rounding step apart
LINE_DIGITS = 2        # the same line printed by two runs of the same computation: 2 units of the last digit


class BatchNotCheckable(Exception):
    """A recorded training batch the first-BatchNorm check cannot use (its message says why)."""


class CaseModel:
    """The case's own copy of its model and validation data, for the deciding functions.

    ``model_cls(dropout=...)`` builds the model (the default: the case's dropout); ``val_split(seed)``
    returns (x_val, y_val) as the case's training run validates on them; ``first_batchnorm(model, x)``
    returns (the first BatchNorm's state_dict prefix, the batch mean and the unbiased batch variance it
    folds in from training input ``x``), or raises BatchNotCheckable."""

    def __init__(self, model_cls, val_split, first_batchnorm):
        self.model_cls, self.val_split, self.first_batchnorm = model_cls, val_split, first_batchnorm

    def expected_keys(self):
        return {k: tuple(v.shape) for k, v in self.model_cls().state_dict().items()}

    def load(self, state, prefix=""):
        model = self.model_cls()
        model.load_state_dict({k[len(prefix):]: v.float() for k, v in state.items() if k.startswith(prefix)})
        return model

    def check_state_shape(self, state, prefix=""):
        got = {k[len(prefix):]: tuple(v.shape) for k, v in state.items() if k.startswith(prefix)}
        return got == self.expected_keys()

    def train_batch_ok(self, t):
        """One training batch: the first BatchNorm's update is a training-mode update from the batch,
        and the output differs from the eval-mode and the dropout-free outputs."""
        import torch

        with torch.no_grad():
            before = {k[7:]: v for k, v in t.items() if k.startswith("before.")}
            if not self.check_state_shape(before):
                return False, f"state before the batch is not a {self.model_cls.__name__} state"
            model = self.load(before)
            x = t["x"].float()
            try:
                bn, batch_mean, batch_var = self.first_batchnorm(model, x)
            except BatchNotCheckable as exc:
                return False, str(exc)
            rm, rv = before[f"{bn}.running_mean"], before[f"{bn}.running_var"]
            want_rm = (1 - MOMENTUM) * rm + MOMENTUM * batch_mean
            want_rv = (1 - MOMENTUM) * rv + MOMENTUM * batch_var
            got_rm, got_rv = t.get(f"after.{bn}.running_mean"), t.get(f"after.{bn}.running_var")
            if got_rm is None or got_rv is None:
                return False, "no BatchNorm buffers after the batch"
            bn_err = max((got_rm - want_rm).abs().max().item(), (got_rv - want_rv).abs().max().item())
            out = t["out"].float()
            model.eval()
            d_eval = (out - model(x)).abs().max().item()
            no_drop = self.model_cls(dropout=0.0)
            no_drop.load_state_dict(model.state_dict())
            no_drop.train()
            d_nodrop = (out - no_drop(x)).abs().max().item()
        ok = bn_err <= BUFFER_TOL and d_eval > MIN_TRAIN_OUT_DIFF and d_nodrop > MIN_TRAIN_OUT_DIFF
        return ok, {"bn_running_stats_err": round(bn_err, 7), "out_vs_eval": round(d_eval, 4),
                    "out_vs_no_dropout": round(d_nodrop, 4)}

    def recomputed_losses(self, m, seed):
        """{epoch: eval-mode val loss of the state recorded at that epoch's end} and the returned model's."""
        x_val, y_val = self.val_split(seed)
        recomputed = {}
        for e in range(1, EPOCHS + 1):
            if e in m.value("epoch_states", list):
                st = m.tensors(f"epoch_{e}")
                if self.check_state_shape(st):
                    recomputed[e] = eval_loss(self.load(st), x_val, y_val)
        returned = m.tensors("returned")
        ret_loss = eval_loss(self.load(returned), x_val, y_val) if self.check_state_shape(returned) else None
        return recomputed, ret_loss


def eval_loss(model, x, y):
    import torch
    import torch.nn.functional as F

    with torch.no_grad():
        model.eval()
        return F.cross_entropy(model(x), y).item()


def check_forward_modes(m, checks):
    """The reported training and measuring forwards' layer modes."""
    n_tr = m.number("training_forwards")
    bad_tr = m.number("training_forwards_not_in_train_mode")
    checks.check("training_forwards_in_train_mode", n_tr > 0 and bad_tr == 0,
                 value=f"{bad_tr:g} of {n_tr:g} training forwards had Dropout/BatchNorm off or in eval mode",
                 bound="0", source="reported")
    n_me = m.number("measuring_forwards")
    bad_me = m.number("measuring_forwards_with_training_mode_layers")
    changed = m.number("measuring_forwards_that_changed_buffers")
    checks.check("validation_forwards_in_eval_mode", n_me >= EPOCHS and bad_me == 0 and changed == 0,
                 value={"measuring_forwards": n_me, "with_training_mode_layers": bad_me, "that_changed_buffers": changed},
                 bound=f">= {EPOCHS} measuring forwards, none in training mode, none changing buffers", source="reported")


def check_architecture(m, checks, case, bound):
    """The returned state_dict has the case model's keys and shapes; False stops the seed's checks."""
    returned = m.tensors("returned")
    arch_ok = case.check_state_shape(returned)
    checks.check("model_is_the_case_architecture", arch_ok,
                 value=sorted(returned)[:12] if not arch_ok else f"{case.model_cls.__name__} state_dict", bound=bound)
    return arch_ok


def logged_validation(m, recomputed):
    """(logged, problems, worst): the per-epoch validation losses the run logged (the returned
    history's, else the printed ones), what keeps them from being compared, and the largest
    |logged or printed - recomputed| (inf when nothing compares)."""
    hist = m.value("history_val_losses")
    printed = {int(e): float(v) for e, v in m.value("printed_val_losses", dict).items()}
    if isinstance(hist, list) and len(hist) == EPOCHS:
        logged = {e: float(v) for e, v in enumerate(hist, start=1)}
    elif sorted(printed) == list(range(1, EPOCHS + 1)):
        logged = printed
    else:
        logged = {}
    problems = []
    if len(recomputed) != EPOCHS:
        problems.append(f"end-of-epoch states for {len(recomputed)} of {EPOCHS} epochs")
    if not logged:
        problems.append("no per-epoch validation loss in the returned history or the printed lines")
    diffs = {f"logged_{e}": abs(v - recomputed[e]) for e, v in logged.items() if e in recomputed}
    diffs.update({f"printed_{e}": abs(v - recomputed[e]) for e, v in printed.items() if e in recomputed})
    worst = max(diffs.values()) if diffs else float("inf")
    return logged, problems, worst


def printed_revalidation(m, ret_loss):
    """(the printed re-validated losses, their largest distance from the returned model's loss), or
    (None, None) when no re-validation line was printed."""
    reval = m.value("printed_revalidated_losses")
    if reval is None:
        return None, None
    if not isinstance(reval, list) or not reval:
        raise Unreadable("printed_revalidated_losses is not a list of losses")
    return reval, max(abs(float(v) - ret_loss) for v in reval)


def check_training_batches(m, checks, case):
    """On the first training batch of every epoch: a training-mode BatchNorm update, dropout applied."""
    batches = m.value("probe_epochs", list)
    results, failing = {}, []
    for e in batches:
        good, results[e] = case.train_batch_ok(m.tensors(f"train_batch_{e}"))
        if not good:
            failing.append(e)
    ok = sorted(batches) == list(range(1, EPOCHS + 1)) and not failing
    checks.check("training_uses_batch_statistics_and_dropout", ok,
                 value={"epochs_seen": batches, "failing_epochs": failing,
                        "first_failing_or_last": results.get(failing[0] if failing else EPOCHS)},
                 bound=f"every epoch: BatchNorm running stats updated from the batch (<= {BUFFER_TOL}), "
                       f"output differs from eval mode and from no dropout (> {MIN_TRAIN_OUT_DIFF})")


def printed_lines(text):
    """The run's output lines: {epoch: numbers}, the best-epoch line's, the re-validated line's."""
    epochs, best, reval = {}, None, None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("epoch ") and "val loss" in line:
            nums = numbers(line)
            if nums and nums[0] == int(nums[0]):
                epochs[int(nums[0])] = nums[1:]
        elif line.startswith("best epoch"):
            best = numbers(line)
        elif line.startswith("best checkpoint re-validated:"):
            reval = numbers(line.partition(":")[2])
    return epochs, best, reval


def _unit_close(a, b, digits=LINE_DIGITS):
    """Two printed lines' numbers agree within ``digits`` units of 4 decimals (the finest printed)."""
    return a is not None and b is not None and len(a) == len(b) and all(abs(x - y) <= digits * 1e-4 + 1e-12
                                                                        for x, y in zip(a, b))


class PrintedRun:
    """What the README's command printed: epoch lines, the best-epoch line, the re-validated line.

    ``val_index``: the position of the val loss among an epoch line's numbers after the epoch, which
    has at least ``min_numbers`` of them. ``spread``: the largest distance of the three re-validated
    losses from the best epoch's (inf when the lines are not all there: ``shape_ok`` False)."""

    def __init__(self, stdout, val_index, min_numbers):
        self.epochs, self.best, self.reval = printed_lines(stdout)
        self.val = {e: nums[val_index] for e, nums in self.epochs.items() if len(nums) >= min_numbers}
        self.reval_losses = self.reval[0::2] if self.reval and len(self.reval) == 6 else []
        self.shape_ok = (sorted(self.val) == list(range(1, EPOCHS + 1)) and self.best is not None
                         and len(self.best) >= 3 and len(self.reval_losses) == 3)
        self.best_loss = self.best[1] if self.best is not None and len(self.best) >= 3 else float("nan")
        self.spread = (max(abs(v - self.best_loss) for v in self.reval_losses) if self.shape_ok else float("inf"))


def check_readme_against_measurement(printed, measured, checks, case):
    """The README run's printed losses are the eval-mode losses recomputed from the measuring process's
    seed-0 states, and its lines are that run's lines (code that behaves differently under the verifier
    moves them)."""
    epochs, best, reval, val, reval_losses = (printed.epochs, printed.best, printed.reval, printed.val,
                                              printed.reval_losses)
    if README_SEED not in measured:
        raise Unreadable(f"no usable measurement for seed {README_SEED} to compare the README run with")
    m = measured[README_SEED]
    recomputed, ret_loss = case.recomputed_losses(m, README_SEED)
    diffs = {f"epoch_{e}": abs(v - recomputed[e]) for e, v in val.items() if e in recomputed}
    if ret_loss is not None:
        diffs.update({f"revalidated_{i}": abs(v - ret_loss) for i, v in enumerate(reval_losses)})
    ok = (printed.shape_ok and len(recomputed) == EPOCHS and ret_loss is not None
          and len(diffs) == EPOCHS + 3 and max(diffs.values()) <= README_TOL)
    checks.check("readme_run_val_losses_are_eval_mode_losses", ok,
                 value={"max_abs_diff": round(max(diffs.values()), 6) if diffs else None,
                        "printed": {e: val[e] for e in sorted(val)}, "revalidated": reval_losses,
                        "recomputed_seed0": {e: round(v, 4) for e, v in recomputed.items()},
                        "recomputed_returned": None if ret_loss is None else round(ret_loss, 4)},
                 bound=f"every printed val / re-validated loss within {README_TOL} of the eval-mode loss recomputed "
                       "from the seed-0 states the measuring process recorded", source="readme_run")

    v_epochs, v_best, v_reval = printed_lines(m.value("printed_text", str))
    mismatched = [f"epoch {e}" for e in range(1, EPOCHS + 1) if not _unit_close(epochs.get(e), v_epochs.get(e))]
    if not _unit_close(best, v_best):
        mismatched.append("best epoch")
    if not _unit_close(reval, v_reval):
        mismatched.append("re-validated")
    checks.check("readme_run_matches_verifier_run", not mismatched,
                 value={"mismatched_lines": mismatched,
                        "readme_run": {"epoch_8": epochs.get(EPOCHS), "best": best, "revalidated": reval},
                        "verifier_run": {"epoch_8": v_epochs.get(EPOCHS), "best": v_best, "revalidated": v_reval}},
                 bound=f"every epoch, best-epoch and re-validated line equal to the measuring process's seed-0 run "
                       f"within {LINE_DIGITS} units of the last digit", source="readme_run")
