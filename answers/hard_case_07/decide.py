"""hard_case_07, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-h07-bca20cbe945072fc

The bug validates in training mode: the shared pass in vibe/engine/loops.py switches the model
to training mode, undoing the model.eval() the trainer's batched validation calls first, so
dropout draws masks and BatchNorm normalizes with each validation batch's statistics and folds
them into its running mean/var. The logged validation loss is not the loss of the model being
validated, repeated validations of one checkpoint disagree, and validation changes the model
it measures. The invariants, per seed, in the configuration the README runs
(configs/experiment.toml: SpectralCNN, 8 epochs, batched validation, three re-validations):

- recomputed `model_is_the_case_architecture`: the returned state_dict has exactly the keys
  and shapes of this file's own copy of SpectralCNN (BatchNorm with running statistics);
- recomputed `logged_validation_is_eval_mode_loss`: for every epoch, the validation loss in
  the returned history (and the printed one) equals the loss this file computes, in eval
  mode, on its own copy of the validation features, of the model as it stood after that
  epoch's last optimizer step (bug: off by 0.01-0.1);
- recomputed `returned_model_matches_logged_best`: the returned model, evaluated here in eval
  mode, has the best logged validation loss, and that is the best of the recomputed ones;
- recomputed `revalidation_printed_matches`: each re-validated loss printed equals the
  returned model's recomputed loss;
- recomputed `training_uses_batch_statistics_and_dropout`: on the first training batch of
  every epoch, the first BatchNorm's running mean/var moved exactly as a training-mode update
  from that batch, and the output is neither the eval-mode output nor the dropout-free one;
- reported `validation_forwards_in_eval_mode`: no forward that no optimizer step followed ran
  a Dropout or BatchNorm layer in training mode or changed a buffer;
- reported `validation_batched_as_configured`: the configuration still validates in batches of
  eval.batch_size = 128 (the user's setting; switching to whole-split validation sidesteps the
  shared pass instead of fixing it);
- reported `training_forwards_in_train_mode`, `model_keeps_dropout_and_batchnorm`,
  `training_ran_readme_configuration` (8 epochs, 256 optimizer steps).

And once, on what the README's command printed (run by the harness as the user runs it, seed 0):
`readme_run_revalidation_repeatable` (the three re-validated losses equal the best epoch's,
bug: 0.2974 / 0.2869 / 0.2551 vs 0.2460), `readme_run_val_losses_are_eval_mode_losses` (every
printed val / re-validated loss within 1.5e-4 of the eval-mode loss recomputed from the seed-0
states the measuring process recorded) and `readme_run_matches_verifier_run` (every epoch,
best-epoch and re-validated line equal to the measuring process's seed-0 run within 2 units of
the last printed digit: code that behaves differently under the verifier fails).
"""

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import Unreadable, decide_main, numbers  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

N_BANDS, N_CLASSES, N_MACHINES, CHANNELS, HIDDEN, DROPOUT = 32, 4, 6, 16, 96, 0.3
N_TRAIN, N_VAL, EPOCHS, STEPS_PER_EPOCH, MOMENTUM = 2048, 512, 8, 32, 0.1
EVAL_BATCH = 128
LOSS_TOL = 1e-4        # eval-mode loss, batched vs whole split: ~1e-7 apart; the bug: >= 1e-2
PRINT_TOL = 1e-4       # 4 printed digits
BUFFER_TOL = 1e-4
MIN_TRAIN_OUT_DIFF = 1e-3
README_SEED = 0        # the README's command runs configs/experiment.toml, seed 0
README_TOL = 1.5e-4    # a printed 4-digit loss against a recomputed one: rounding 5e-5 + LOSS_TOL
REPEAT_TOL = 1.01e-4   # printed 4-digit losses of one computation: equal, or one rounding step apart
LINE_DIGITS = 2        # the same line printed by two runs of the same computation: 2 units of the last digit


def make_recordings(n, seed):
    """The case's synthetic recordings (vibe/data/synth.py), reproduced so the agent cannot change them."""
    proto = torch.randn(N_CLASSES, N_BANDS, generator=torch.Generator().manual_seed(99))
    gm = torch.Generator().manual_seed(98)
    tilt = (0.8 * torch.rand(N_MACHINES, 1, generator=gm) - 0.4) * torch.linspace(-1.0, 1.0, N_BANDS)
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, N_CLASSES, (n,), generator=g)
    machine = torch.randint(0, N_MACHINES, (n,), generator=g)
    load = torch.rand(n, 1, generator=g) * 2.0
    noise = torch.randn(n, N_BANDS, generator=g)
    log_power = proto[y] * (0.6 + 0.4 * load) + tilt[machine] + 2.2 * noise + load
    return torch.exp(0.5 * log_power), y


def val_features(seed):
    """Validation features: log power, standardized with the training split's statistics (vibe/data)."""
    raw_train, _ = make_recordings(N_TRAIN, seed)
    raw_val, y_val = make_recordings(N_VAL, seed + 1000)
    log_train = 2.0 * torch.log(raw_train.clamp_min(1e-6))
    mean, std = log_train.mean(dim=0), log_train.std(dim=0).clamp_min(1e-6)
    return (2.0 * torch.log(raw_val.clamp_min(1e-6)) - mean) / std, y_val


class SpectralCNN(nn.Module):
    """The case's SpectralCNN (vibe/models/cnn.py) at the experiment's sizes."""

    def __init__(self, dropout=DROPOUT):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, CHANNELS, kernel_size=5, padding=2), nn.BatchNorm1d(CHANNELS), nn.ReLU(),
            nn.Conv1d(CHANNELS, CHANNELS, kernel_size=5, padding=2, stride=2), nn.BatchNorm1d(CHANNELS), nn.ReLU(),
        )
        self.head = nn.Sequential(
            nn.Flatten(), nn.Dropout(dropout),
            nn.Linear(CHANNELS * ((N_BANDS + 1) // 2), HIDDEN), nn.BatchNorm1d(HIDDEN), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(HIDDEN, N_CLASSES),
        )

    def forward(self, x):
        return self.head(self.features(x.unsqueeze(1)))


def expected_keys():
    return {k: tuple(v.shape) for k, v in SpectralCNN().state_dict().items()}


def load(state, prefix=""):
    model = SpectralCNN()
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
    """One training batch: the first BatchNorm's update is a training-mode update from the batch,
    and the output differs from the eval-mode and the dropout-free outputs."""
    before = {k[7:]: v for k, v in t.items() if k.startswith("before.")}
    if not check_state_shape(before):
        return False, "state before the batch is not a SpectralCNN state"
    model = load(before)
    x = t["x"].float()
    if x.dim() != 2 or x.shape[1] != N_BANDS:
        return False, f"training input of shape {tuple(x.shape)}"
    conv = model.features[0](x.unsqueeze(1))
    rm, rv = before["features.1.running_mean"], before["features.1.running_var"]
    want_rm = (1 - MOMENTUM) * rm + MOMENTUM * conv.mean(dim=(0, 2))
    want_rv = (1 - MOMENTUM) * rv + MOMENTUM * conv.var(dim=(0, 2), unbiased=True)
    got_rm, got_rv = t.get("after.features.1.running_mean"), t.get("after.features.1.running_var")
    if got_rm is None or got_rv is None:
        return False, "no BatchNorm buffers after the batch"
    bn_err = max((got_rm - want_rm).abs().max().item(), (got_rv - want_rv).abs().max().item())
    out = t["out"].float()
    model.eval()
    d_eval = (out - model(x)).abs().max().item()
    no_drop = SpectralCNN(dropout=0.0)
    no_drop.load_state_dict(model.state_dict())
    no_drop.train()
    d_nodrop = (out - no_drop(x)).abs().max().item()
    ok = bn_err <= BUFFER_TOL and d_eval > MIN_TRAIN_OUT_DIFF and d_nodrop > MIN_TRAIN_OUT_DIFF
    return ok, {"bn_running_stats_err": round(bn_err, 7), "out_vs_eval": round(d_eval, 4),
                "out_vs_no_dropout": round(d_nodrop, 4)}


def recomputed_losses(m, seed):
    """{epoch: eval-mode val loss of the state recorded at that epoch's end} and the returned model's."""
    x_val, y_val = val_features(seed)
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
                 bound=f"{EPOCHS} epochs, {EPOCHS * STEPS_PER_EPOCH} optimizer steps: the README's configuration",
                 source="reported")
    p, tracking = m.value("dropout_p", list), m.value("batchnorm_tracking", list)
    checks.check("model_keeps_dropout_and_batchnorm", p == [DROPOUT, DROPOUT] and tracking == [True, True, True],
                 value={"dropout_p": p, "batchnorm_tracking_running_stats": tracking},
                 bound="2 x Dropout(0.3), 3 x BatchNorm with running stats: removing them hides the symptom "
                       "instead of validating in eval mode", source="reported")
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

    mode, ebs, sizes = m.value("eval_mode"), m.value("eval_batch_size"), m.value("measuring_batch_sizes", list)
    checks.check("validation_batched_as_configured",
                 mode == "batched" and ebs == EVAL_BATCH and bool(sizes) and max(sizes) <= EVAL_BATCH,
                 value={"eval.mode": mode, "eval.batch_size": ebs, "measuring_batch_sizes": sizes},
                 bound=f"eval.mode 'batched', eval.batch_size {EVAL_BATCH}, no measuring forward over more than {EVAL_BATCH} windows",
                 source="reported")

    returned = m.tensors("returned")
    arch_ok = check_state_shape(returned)
    checks.check("model_is_the_case_architecture", arch_ok,
                 value=sorted(returned)[:12] if not arch_ok else "SpectralCNN state_dict",
                 bound="the keys and shapes of SpectralCNN(32 bands, 4 classes, 16 channels, 96 hidden) with BatchNorm running stats")
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
                 value=round(worst, 6) if math.isfinite(worst) and not problems else "; ".join(problems) or "n/a",
                 bound=f"<= {LOSS_TOL}: max |logged - recomputed eval-mode loss| over the epochs (recomputed "
                       f"{ {e: round(v, 4) for e, v in recomputed.items()} }, logged "
                       f"{ {e: round(v, 4) for e, v in logged.items()} }). Validation in training mode logs the loss "
                       "of dropout masks and batch statistics, 0.01-0.1 off; batched vs whole-split eval ~1e-7",
                 limit=LOSS_TOL if math.isfinite(worst) and not problems else None,
                 sense="<" if math.isfinite(worst) and not problems else None)

    best_logged = min(logged.values()) if logged else float("nan")
    best_recomputed = min(recomputed.values()) if recomputed else float("nan")
    gap = max(abs(ret_loss - best_logged), abs(ret_loss - best_recomputed))
    ok = gap <= LOSS_TOL
    checks.check("returned_model_matches_logged_best", ok, value=round(gap, 6) if math.isfinite(gap) else "n/a",
                 bound=f"<= {LOSS_TOL}: |returned model's eval loss ({round(ret_loss, 6)}) - best logged "
                       f"({round(best_logged, 6)}) or best recomputed ({round(best_recomputed, 6)})|; training-mode "
                       "validation picks the best epoch by noisy losses and changes the model it keeps",
                 limit=LOSS_TOL if math.isfinite(gap) else None, sense="<" if math.isfinite(gap) else None)

    reval = m.value("printed_revalidated_losses")
    if reval is None:
        checks.check("revalidation_printed_matches", True, value="no re-validation line printed", bound="n/a")
    else:
        if not isinstance(reval, list) or not reval:
            raise Unreadable("printed_revalidated_losses is not a list of losses")
        worst = max(abs(float(v) - ret_loss) for v in reval)
        checks.check("revalidation_printed_matches", worst <= PRINT_TOL,
                     value=round(worst, 6),
                     bound=f"<= {PRINT_TOL}: max |printed re-validated loss {reval} - the returned model's eval loss "
                           f"({round(ret_loss, 4)})|; validating in training mode gives a different loss each time",
                     limit=PRINT_TOL, sense="<")

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
    val = {e: nums[3] for e, nums in epochs.items() if len(nums) >= 7}
    reval_losses = reval[0::2] if reval and len(reval) == 6 else []
    shape_ok = sorted(val) == list(range(1, EPOCHS + 1)) and best is not None and len(best) >= 3 and len(reval_losses) == 3
    best_loss = best[1] if best is not None and len(best) >= 3 else float("nan")
    spread = (max(abs(v - best_loss) for v in reval_losses) if shape_ok else float("inf"))
    checks.check("readme_run_revalidation_repeatable", shape_ok and spread <= REPEAT_TOL,
                 value=round(spread, 6) if shape_ok else {"best_epoch_val_loss": best_loss, "revalidated": reval_losses,
                                                          "epochs_printed": sorted(epochs)},
                 bound=f"8 epoch lines; the 3 re-validated losses {reval_losses} and the best epoch's val loss "
                       f"({best_loss}) equal within {REPEAT_TOL}: "
                       "the README's symptom is three re-validations of one checkpoint disagreeing",
                 source="readme_run", limit=REPEAT_TOL if shape_ok else None, sense="<" if shape_ok else None)

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
