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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.validation_in_train_mode import (  # noqa: E402
    DROPOUT, EPOCHS, LOSS_TOL, PRINT_TOL, REPEAT_TOL, STEPS_PER_EPOCH, BatchNotCheckable, CaseModel, PrintedRun,
    check_architecture, check_forward_modes, check_readme_against_measurement, check_training_batches,
    logged_validation, printed_revalidation)
from verifylib import decide_main  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

N_BANDS, N_CLASSES, N_MACHINES, CHANNELS, HIDDEN = 32, 4, 6, 16, 96
N_TRAIN, N_VAL = 2048, 512
EVAL_BATCH = 128


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


def first_batchnorm(model, x):
    """features.1 normalizes the first convolution's output over the batch and the bands."""
    if x.dim() != 2 or x.shape[1] != N_BANDS:
        raise BatchNotCheckable(f"training input of shape {tuple(x.shape)}")
    conv = model.features[0](x.unsqueeze(1))
    return "features.1", conv.mean(dim=(0, 2)), conv.var(dim=(0, 2), unbiased=True)


CASE = CaseModel(SpectralCNN, val_features, first_batchnorm)


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
    check_forward_modes(m, checks)

    mode, ebs, sizes = m.value("eval_mode"), m.value("eval_batch_size"), m.value("measuring_batch_sizes", list)
    checks.check("validation_batched_as_configured",
                 mode == "batched" and ebs == EVAL_BATCH and bool(sizes) and max(sizes) <= EVAL_BATCH,
                 value={"eval.mode": mode, "eval.batch_size": ebs, "measuring_batch_sizes": sizes},
                 bound=f"eval.mode 'batched', eval.batch_size {EVAL_BATCH}, no measuring forward over more than "
                       f"{EVAL_BATCH} windows",
                 source="reported")

    if not check_architecture(m, checks, CASE,
                              bound="the keys and shapes of SpectralCNN(32 bands, 4 classes, 16 channels, 96 hidden) "
                                    "with BatchNorm running stats"):
        return

    recomputed, ret_loss = CASE.recomputed_losses(m, seed)
    logged, problems, worst = logged_validation(m, recomputed)
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

    reval, worst = printed_revalidation(m, ret_loss)
    if reval is None:
        checks.check("revalidation_printed_matches", True, value="no re-validation line printed", bound="n/a")
    else:
        checks.check("revalidation_printed_matches", worst <= PRINT_TOL,
                     value=round(worst, 6),
                     bound=f"<= {PRINT_TOL}: max |printed re-validated loss {reval} - the returned model's eval loss "
                           f"({round(ret_loss, 4)})|; validating in training mode gives a different loss each time",
                     limit=PRINT_TOL, sense="<")

    check_training_batches(m, checks, CASE)


def readme(run, measured, checks):
    """Checks on what `python train.py` printed (seed 0, defaults), as the user runs it."""
    printed = PrintedRun(run["stdout"], val_index=3, min_numbers=7)
    shape_ok, reval_losses, best_loss = printed.shape_ok, printed.reval_losses, printed.best_loss
    checks.check("readme_run_revalidation_repeatable", shape_ok and printed.spread <= REPEAT_TOL,
                 value=round(printed.spread, 6) if shape_ok else {"best_epoch_val_loss": best_loss,
                                                                  "revalidated": reval_losses,
                                                                  "epochs_printed": sorted(printed.epochs)},
                 bound=f"8 epoch lines; the 3 re-validated losses {reval_losses} and the best epoch's val loss "
                       f"({best_loss}) equal within {REPEAT_TOL}: "
                       "the README's symptom is three re-validations of one checkpoint disagreeing",
                 source="readme_run", limit=REPEAT_TOL if shape_ok else None, sense="<" if shape_ok else None)
    check_readme_against_measurement(printed, measured, checks, CASE)


decide_main(decide, readme=readme)
