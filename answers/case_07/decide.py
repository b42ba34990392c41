"""case_07, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-c07-c58c4cab6120b23c

The bug runs validation in training mode: dropout draws masks and BatchNorm normalizes with
each validation batch's statistics and folds them into its running mean/var. So the logged
validation loss is not the loss of the model being validated, repeated validations of one
checkpoint disagree, and validation changes the model it measures. The invariants, per seed,
at the README's settings (defaults: 8 epochs, validation every epoch, final re-validation):

- recomputed `model_is_the_case_architecture`: the returned state_dict has exactly the keys
  and shapes of this file's own copy of FaultNet (BatchNorm with running statistics);
- recomputed `logged_validation_is_eval_mode_loss`: for every epoch, the validation loss in
  the returned history (or the printed one if the history has none; both when both exist)
  equals the loss this file computes, in eval mode, on its own copy of the validation split,
  of the model as it stood after that epoch's last optimizer step (bug: off by 0.02-0.10);
- recomputed `returned_model_matches_logged_best`: the returned model, evaluated here in eval
  mode, has the best logged validation loss, and that is the best of the recomputed
  epoch losses: re-validating in training mode moves the returned model's BatchNorm buffers;
- recomputed `revalidation_printed_matches` (only when the re-validated line is printed):
  each re-validated loss printed equals the returned model's recomputed loss;
- recomputed `training_uses_batch_statistics_and_dropout`: on the first training batch of
  every epoch, BatchNorm's running mean/var moved exactly as a training-mode update from
  that batch's statistics, and the output is neither the eval-mode output nor the
  dropout-free training-mode output (so training was not switched to eval mode and dropout
  was not removed);
- reported `validation_forwards_in_eval_mode`: no forward that no optimizer step followed ran
  a Dropout or BatchNorm layer in training mode or changed a buffer;
- reported `training_forwards_in_train_mode`: every forward an optimizer step followed ran
  both Dropout layers and both BatchNorm layers in training mode;
- reported `model_keeps_dropout_and_batchnorm`: two Dropout(0.3), two BatchNorm tracking
  running statistics;
- reported `training_ran_readme_configuration`: 8 epochs, 256 optimizer steps.

And once, on what `python train.py` (the README's command, run by the harness as the user runs
it: plain python, no hooks, seed 0, all defaults) printed, so that code which validates
properly only under the verifier fails (`readme_run` rows):

- `readme_run_completes` (verifylib, every case): exit code 0, not timed out;
- `readme_run_revalidation_repeatable`: the symptom the README shows is gone: the three
  re-validated losses of the best checkpoint are equal and equal the best epoch's logged val
  loss (printed to 4 digits, within 1e-4; bug: 0.5101 / 0.5297 / 0.4968 vs 0.4763). Only
  measuring in training mode (dropout masks, batch statistics, running stats updated by
  validation) moves them apart;
- `readme_run_val_losses_are_eval_mode_losses`: the val loss printed for every epoch, and the
  re-validated ones, equal the eval-mode losses this file recomputes from the seed-0 states the
  measuring process recorded at each epoch's end and returned (within 1.5e-4: 4 printed digits
  plus 1e-4; bug: off by 0.02-0.10). The README's run is the measuring process's seed-0 run
  (same config, deterministic on one thread), so this holds for every honest fix;
- `readme_run_matches_verifier_run`: every epoch line (train loss / acc, val loss / acc), the
  best-epoch line and the re-validated line equal the ones the agent's code printed under the
  measuring process for seed 0, within 2 units of the last printed digit. Code that behaves
  differently under the verifier (python -I, its argv, its hooks) moves them.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import Unreadable, decide_main, numbers  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

N_FEATURES, N_CLASSES, HIDDEN, DROPOUT = 24, 4, 128, 0.3
N_VAL, EPOCHS, STEPS_PER_EPOCH, MOMENTUM, BN_EPS = 512, 8, 32, 0.1, 1e-5
LOSS_TOL = 1e-4        # eval-mode loss, batched vs whole split: ~1e-7 apart; the bug: >= 1e-2
PRINT_TOL = 1e-4       # 4 printed digits
BUFFER_TOL = 1e-4
MIN_TRAIN_OUT_DIFF = 1e-3
README_SEED = 0        # `python train.py` runs Config() = seed 0, the measuring process's seed-0 run
README_TOL = 1.5e-4    # a printed 4-digit loss against a recomputed one: rounding 5e-5 + LOSS_TOL
REPEAT_TOL = 1.01e-4   # printed 4-digit losses of one computation: equal, or one rounding step apart
LINE_DIGITS = 2        # the same line printed by two runs of the same computation: 2 units of the last digit


def make_split(n, seed):
    """The case's synthetic data (data.py), reproduced here so the agent cannot change it."""
    g = torch.Generator().manual_seed(seed)
    proto = torch.randn(N_CLASSES, N_FEATURES, generator=torch.Generator().manual_seed(99))
    y = torch.randint(0, N_CLASSES, (n,), generator=g)
    load = torch.rand(n, 1, generator=g) * 2.0
    x = proto[y] * (0.6 + 0.4 * load) + 2.2 * torch.randn(n, N_FEATURES, generator=g) + load
    return x, y


class FaultNet(nn.Module):
    """The case's FaultNet (model.py)."""

    def __init__(self, dropout=DROPOUT):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(N_FEATURES, HIDDEN), nn.BatchNorm1d(HIDDEN), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(HIDDEN, HIDDEN), nn.BatchNorm1d(HIDDEN), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(HIDDEN, N_CLASSES),
        )

    def forward(self, x):
        return self.net(x)


def expected_keys():
    return {k: tuple(v.shape) for k, v in FaultNet().state_dict().items()}


def load(state, prefix=""):
    model = FaultNet()
    model.load_state_dict({k[len(prefix):]: v.float() for k, v in state.items() if k.startswith(prefix)})
    return model


@torch.no_grad()
def eval_loss(model, x, y):
    model.eval()
    return F.cross_entropy(model(x), y).item()


def check_state_shape(state, prefix=""):
    got = {k[len(prefix):]: tuple(v.shape) for k, v in state.items() if k.startswith(prefix)}
    return got == expected_keys()


@torch.no_grad()
def train_batch_ok(t):
    """One training batch: (BatchNorm1 update is a training-mode update, output differs from eval and no-dropout)."""
    before = {k[7:]: v for k, v in t.items() if k.startswith("before.")}
    if not check_state_shape(before):
        return False, "state before the batch is not a FaultNet state"
    model = load(before)
    x = t["x"].float()
    lin = model.net[0](x)
    rm, rv = before["net.1.running_mean"], before["net.1.running_var"]
    want_rm = (1 - MOMENTUM) * rm + MOMENTUM * lin.mean(0)
    want_rv = (1 - MOMENTUM) * rv + MOMENTUM * lin.var(0, unbiased=True)
    got_rm, got_rv = t.get("after.net.1.running_mean"), t.get("after.net.1.running_var")
    if got_rm is None or got_rv is None:
        return False, "no BatchNorm buffers after the batch"
    bn_err = max((got_rm - want_rm).abs().max().item(), (got_rv - want_rv).abs().max().item())
    out = t["out"].float()
    model.eval()
    d_eval = (out - model(x)).abs().max().item()
    no_drop = FaultNet(dropout=0.0)
    no_drop.load_state_dict(model.state_dict())
    no_drop.train()
    d_nodrop = (out - no_drop(x)).abs().max().item()
    ok = bn_err <= BUFFER_TOL and d_eval > MIN_TRAIN_OUT_DIFF and d_nodrop > MIN_TRAIN_OUT_DIFF
    return ok, {"bn_running_stats_err": round(bn_err, 7), "out_vs_eval": round(d_eval, 4),
                "out_vs_no_dropout": round(d_nodrop, 4)}


def recomputed_losses(m, seed):
    """{epoch: eval-mode val loss of the state recorded at that epoch's end} and the returned model's."""
    x_val, y_val = make_split(N_VAL, seed + 1000)
    recomputed = {}
    for e in range(1, EPOCHS + 1):
        if e in m.value("epoch_states", list):
            st = m.tensors(f"epoch_{e}")
            if check_state_shape(st):
                recomputed[e] = eval_loss(load(st), x_val, y_val)
    returned = m.tensors("returned")
    ret_loss = eval_loss(load(returned), x_val, y_val) if check_state_shape(returned) else None
    return recomputed, ret_loss


def decide(seed, m, checks):
    epochs, steps = m.number("epochs"), m.number("optimizer_steps")
    checks.check("training_ran_readme_configuration", epochs == EPOCHS and steps == EPOCHS * STEPS_PER_EPOCH,
                 value={"epochs": epochs, "optimizer_steps": steps},
                 bound=f"{EPOCHS} epochs, {EPOCHS * STEPS_PER_EPOCH} optimizer steps", source="reported")
    p, tracking = m.value("dropout_p", list), m.value("batchnorm_tracking", list)
    checks.check("model_keeps_dropout_and_batchnorm", p == [DROPOUT, DROPOUT] and tracking == [True, True],
                 value={"dropout_p": p, "batchnorm_tracking_running_stats": tracking},
                 bound="2 x Dropout(0.3), 2 x BatchNorm with running stats", source="reported")
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

    returned = m.tensors("returned")
    arch_ok = check_state_shape(returned)
    checks.check("model_is_the_case_architecture", arch_ok,
                 value=sorted(returned)[:12] if not arch_ok else "FaultNet state_dict",
                 bound="the keys and shapes of FaultNet(24, 4, 128) with BatchNorm running stats")
    if not arch_ok:
        return

    recomputed, ret_loss = recomputed_losses(m, seed)
    hist = m.value("history_val_losses")
    printed = {int(e): float(v) for e, v in m.value("printed_val_losses", dict).items()}
    # the per-epoch validation losses the run logged: the returned history's, else the printed ones
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
    checks.check("logged_validation_is_eval_mode_loss", not problems and worst <= LOSS_TOL,
                 value={"max_abs_diff": round(worst, 6), "recomputed": {e: round(v, 4) for e, v in recomputed.items()},
                        "logged": {e: round(v, 4) for e, v in logged.items()}, "problems": problems},
                 bound=f"|logged - recomputed eval-mode loss| <= {LOSS_TOL} for every epoch")

    best_logged = min(logged.values()) if logged else float("nan")
    best_recomputed = min(recomputed.values()) if recomputed else float("nan")
    ok = abs(ret_loss - best_logged) <= LOSS_TOL and abs(ret_loss - best_recomputed) <= LOSS_TOL
    checks.check("returned_model_matches_logged_best", ok,
                 value={"returned_eval_loss": round(ret_loss, 6), "best_logged": round(best_logged, 6),
                        "best_recomputed": round(best_recomputed, 6)},
                 bound=f"equal within {LOSS_TOL}")

    reval = m.value("printed_revalidated_losses")
    if reval is None:
        checks.check("revalidation_printed_matches", True, value="no re-validation line printed", bound="n/a")
    else:
        if not isinstance(reval, list) or not reval:
            raise Unreadable("printed_revalidated_losses is not a list of losses")
        worst = max(abs(float(v) - ret_loss) for v in reval)
        checks.check("revalidation_printed_matches", worst <= PRINT_TOL,
                     value={"printed": reval, "returned_eval_loss": round(ret_loss, 4)},
                     bound=f"every printed re-validated loss within {PRINT_TOL} of the returned model's")

    batches = m.value("probe_epochs", list)
    results, failing = {}, []
    for e in batches:
        good, results[e] = train_batch_ok(m.tensors(f"train_batch_{e}"))
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


def readme(run, measured, checks):
    """Checks on what `python train.py` printed (seed 0, defaults), as the user runs it."""
    epochs, best, reval = printed_lines(run["stdout"])
    val = {e: nums[2] for e, nums in epochs.items() if len(nums) >= 4}
    reval_losses = reval[0::2] if reval and len(reval) == 6 else []
    shape_ok = sorted(val) == list(range(1, EPOCHS + 1)) and best is not None and len(best) >= 3 and len(reval_losses) == 3
    best_loss = best[1] if best is not None and len(best) >= 3 else float("nan")
    spread = (max(abs(v - best_loss) for v in reval_losses) if shape_ok else float("inf"))
    checks.check("readme_run_revalidation_repeatable", shape_ok and spread <= REPEAT_TOL,
                 value={"best_epoch_val_loss": best_loss, "revalidated": reval_losses,
                        "max_abs_diff": round(spread, 6) if shape_ok else None,
                        "epochs_printed": sorted(epochs)},
                 bound=f"8 epoch lines; the 3 re-validated losses and the best epoch's val loss equal within {REPEAT_TOL}",
                 source="readme_run")

    if README_SEED not in measured:
        raise Unreadable(f"no usable measurement for seed {README_SEED} to compare the README run with")
    m = measured[README_SEED]
    recomputed, ret_loss = recomputed_losses(m, README_SEED)
    diffs = {f"epoch_{e}": abs(v - recomputed[e]) for e, v in val.items() if e in recomputed}
    if ret_loss is not None:
        diffs.update({f"revalidated_{i}": abs(v - ret_loss) for i, v in enumerate(reval_losses)})
    ok = (shape_ok and len(recomputed) == EPOCHS and ret_loss is not None
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


decide_main(decide, readme=readme)
