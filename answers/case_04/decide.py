"""case_04, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-c04-3fa792f25ef83546

The bug: GestureNet.forward turns (B, T, H) into the GRU's (T, B, H) with a reshape, so each
sequence the GRU reads is stitched from frames of several recordings. The invariant it breaks:
a recording's output depends only on that recording, never on the other rows of its batch or on
how much padding they add. Checks per seed, at the README's settings (Adam lr 3e-3, batch 32,
150 steps, eval batch 100):

- recomputed `eval_logits_independent_of_batch`: the trained model's validation logits (eval
  mode) are the same whether each recording is evaluated alone (no padding), in the README's
  batches of 100, or in shuffled batches of 37: max abs difference < 1e-4 (a correct model:
  ~3e-6). The bug, a layout that only looks matched, pooling or summaries that read the padding
  (mean over all T, final state after padding, a backward direction that starts on the padding)
  all move it.
- recomputed `train_mode_forward_is_row_equivariant`: in training mode (BatchNorm on batch
  statistics, dropout off) permuting the rows of a batch of 32 training recordings permutes the
  outputs the same way (max abs diff < 1e-4). A model that mixes rows only while training moves it.
- recomputed `val_nll_of_single_recordings`: the cross-entropy of the single-recording logits
  against this file's own validation labels is < 0.1 (chance is ln 4 = 1.386, where training on
  mixed sequences stays; a correct fix reaches ~0.003).
- reported `training_loss_well_below_chance`: the median of the last 25 values passed to
  backward is < 0.1 (the README's expectation; the bug keeps it at ~1.38).
- reported `optimizer_is_the_configured_adam`: 150 Adam steps at lr 3e-3, as the README runs it.

Then, once, on what the README's own command (`python train.py`, run by the harness on a fresh
copy of the agent's files as the user runs it: plain python, no hooks) printed (source
readme_run). Code that recognises the verifier (python -I, measure.py in argv, hooks) and is
fixed only there fails these:

- `readme_run_completes` (verifylib, every case): exit code 0, not timed out;
- `readme_run_logs_the_training`: it logs the README's steps 0, 25, ..., 150 with train loss, val
  loss and val acc;
- `readme_run_val_loss_below_chance`: the validation loss printed at step 150 is < 0.1 (the bug
  prints ~1.40, chance ln 4 = 1.386; gold 0.0034);
- `readme_run_val_acc_near_one`: the validation accuracy printed at step 150 is >= 0.9 (the bug
  prints ~0.25; gold 1.000);
- `readme_run_train_loss_below_chance`: the training loss printed at step 150 is < 0.3 (the bug
  prints ~1.36; correct fixes 0.005-0.011);
- `readme_run_matches_measured_training`: the README's run is seed 0 at the README's settings,
  which is what the measuring process trained: every printed row equals the history that training
  returned (losses within 1e-3, accuracy within one recording), and each printed training loss
  equals the value passed to backward at that step (< 1e-3);
- `readme_run_val_matches_recomputed_logits`: the validation loss and accuracy printed at step 150
  equal this file's cross-entropy and accuracy of the seed-0 trained model's logits in the
  README's batches of 100 against its own labels (loss within 1e-3, accuracy within one recording).
"""

import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from families.sequence_layout import (  # noqa: E402
    LOGIT_TOL,
    LOSS_BOUND,
    N_CLASSES,
    N_VAL,
    NLL_BOUND,
    STEPS,
    VAL_ACC_FLOOR,
    VAL_SEED_OFFSET,
    batch_deviations,
    check_readme_against_measured,
    final_training_loss,
    readme_rows,
    remember_readme_seed,
    train_mode_deviation,
    validation_logits,
)
from verifylib import decide_main  # noqa: E402

LR, TRAIN_LOSS_BOUND = 3e-3, 0.3


def val_labels(seed):
    """The labels of the case's validation set (data.make_dataset draws them first from its generator)."""
    g = torch.Generator().manual_seed(seed + VAL_SEED_OFFSET)
    return torch.randint(0, N_CLASSES, (N_VAL,), generator=g)


def decide(seed, m, checks):
    n_steps, kinds, lrs = m.number("optimizer_steps"), m.value("optimizers", list), m.value("learning_rates", list)
    checks.check("optimizer_is_the_configured_adam", n_steps == STEPS and kinds == ["Adam"] and lrs == [LR],
                 value={"steps": n_steps, "optimizers": kinds, "lrs": lrs}, bound=f"{STEPS} Adam steps at lr {LR}",
                 source="reported")
    final = final_training_loss(m)
    checks.check("training_loss_well_below_chance", final < LOSS_BOUND,
                 value=round(final, 4), limit=LOSS_BOUND, sense="<", source="reported",
                 bound=f"< {LOSS_BOUND}: median of the last 25 values passed to backward "
                       f"({m.number('backward_calls'):.0f} calls); sequences stitched from several recordings keep "
                       "it near chance, ln 4 = 1.386")

    logits = validation_logits(m)
    devs, flips = batch_deviations(logits)
    y = val_labels(seed)
    checks.check("eval_logits_independent_of_batch", all(d < LOGIT_TOL for d in devs.values()),
                 value={"max_abs_diff_vs_alone": devs, "prediction_flips": flips},
                 bound=f"< {LOGIT_TOL}")

    dev = train_mode_deviation(m)
    checks.check("train_mode_forward_is_row_equivariant", dev < LOGIT_TOL, value=round(dev, 7),
                 limit=LOGIT_TOL, sense="<",
                 bound=f"max |f(x[perm]) - f(x)[perm]| < {LOGIT_TOL}: a forward that mixes the rows of a batch "
                       "while training moves it")

    remember_readme_seed(seed, logits, y)
    alone = logits["alone"].double()
    nll = F.cross_entropy(alone, y).item()
    acc = (alone.argmax(-1) == y).double().mean().item()
    checks.check("val_nll_of_single_recordings", nll < NLL_BOUND, value=round(nll, 4), limit=NLL_BOUND, sense="<",
                 bound=f"< {NLL_BOUND}: cross-entropy of the single-recording logits (accuracy {acc:.3f}); training "
                       "on mixed sequences stays at chance, 1.386")


def readme(run, measured, checks):
    rows, last = readme_rows(run, checks)
    val_loss, val_acc, train_loss = (last.get(k, math.nan) for k in ("val loss", "val acc", "train loss"))
    checks.check("readme_run_val_loss_below_chance", val_loss < NLL_BOUND, value=val_loss, limit=NLL_BOUND, sense="<",
                 bound=f"< {NLL_BOUND} at step {STEPS} (the bug prints ~1.40; chance 1.386)", source="readme_run")
    checks.check("readme_run_val_acc_near_one", val_acc >= VAL_ACC_FLOOR, value=val_acc,
                 bound=f">= {VAL_ACC_FLOOR} at step {STEPS} (the bug prints ~0.25)", source="readme_run")
    checks.check("readme_run_train_loss_below_chance", train_loss < TRAIN_LOSS_BOUND, value=train_loss,
                 limit=TRAIN_LOSS_BOUND, sense="<",
                 bound=f"< {TRAIN_LOSS_BOUND} at step {STEPS} (the bug prints ~1.36)", source="readme_run")
    check_readme_against_measured(rows, measured, checks)


decide_main(decide, readme=readme)
