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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.validation_in_train_mode import (  # noqa: E402
    DROPOUT, EPOCHS, LOSS_TOL, PRINT_TOL, REPEAT_TOL, STEPS_PER_EPOCH, CaseModel, PrintedRun, check_architecture,
    check_forward_modes, check_readme_against_measurement, check_training_batches, logged_validation,
    printed_revalidation)
from verifylib import decide_main  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

N_FEATURES, N_CLASSES, HIDDEN = 24, 4, 128
N_VAL = 512


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


def first_batchnorm(model, x):
    """net.1 normalizes the first Linear layer's output over the batch."""
    lin = model.net[0](x)
    return "net.1", lin.mean(0), lin.var(0, unbiased=True)


CASE = CaseModel(FaultNet, lambda seed: make_split(N_VAL, seed + 1000), first_batchnorm)


def decide(seed, m, checks):
    epochs, steps = m.number("epochs"), m.number("optimizer_steps")
    checks.check("training_ran_readme_configuration", epochs == EPOCHS and steps == EPOCHS * STEPS_PER_EPOCH,
                 value={"epochs": epochs, "optimizer_steps": steps},
                 bound=f"{EPOCHS} epochs, {EPOCHS * STEPS_PER_EPOCH} optimizer steps", source="reported")
    p, tracking = m.value("dropout_p", list), m.value("batchnorm_tracking", list)
    checks.check("model_keeps_dropout_and_batchnorm", p == [DROPOUT, DROPOUT] and tracking == [True, True],
                 value={"dropout_p": p, "batchnorm_tracking_running_stats": tracking},
                 bound="2 x Dropout(0.3), 2 x BatchNorm with running stats", source="reported")
    check_forward_modes(m, checks)

    if not check_architecture(m, checks, CASE,
                              bound="the keys and shapes of FaultNet(24, 4, 128) with BatchNorm running stats"):
        return

    recomputed, ret_loss = CASE.recomputed_losses(m, seed)
    logged, problems, worst = logged_validation(m, recomputed)
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

    reval, worst = printed_revalidation(m, ret_loss)
    if reval is None:
        checks.check("revalidation_printed_matches", True, value="no re-validation line printed", bound="n/a")
    else:
        checks.check("revalidation_printed_matches", worst <= PRINT_TOL,
                     value={"printed": reval, "returned_eval_loss": round(ret_loss, 4)},
                     bound=f"every printed re-validated loss within {PRINT_TOL} of the returned model's")

    check_training_batches(m, checks, CASE)


def readme(run, measured, checks):
    """Checks on what `python train.py` printed (seed 0, defaults), as the user runs it."""
    printed = PrintedRun(run["stdout"], val_index=2, min_numbers=4)
    checks.check("readme_run_revalidation_repeatable", printed.shape_ok and printed.spread <= REPEAT_TOL,
                 value={"best_epoch_val_loss": printed.best_loss, "revalidated": printed.reval_losses,
                        "max_abs_diff": round(printed.spread, 6) if printed.shape_ok else None,
                        "epochs_printed": sorted(printed.epochs)},
                 bound=f"8 epoch lines; the 3 re-validated losses and the best epoch's val loss equal within {REPEAT_TOL}",
                 source="readme_run")
    check_readme_against_measurement(printed, measured, checks, CASE)


decide_main(decide, readme=readme)
