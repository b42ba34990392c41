"""hard_case_03, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-h03-ce39008fe54aa1fc

The bug: memory.embed_rows reaches the tensors through base_set(), which unwraps the training
Subset to the full GlyphSet and keeps none of its indices, so the NCA memory bank (built by
build_bank for configs/nca.toml) holds every image, validation rows and their labels included;
both the training objective and the validation predictions read it. The invariant it breaks:
nothing the training produces (normalizer, encoder, bank) and nothing the validation predictions
read may depend on the validation rows. Seeds 0-2 run the README's configuration (pinned by the
measuring half: 100 classes x 10 images, 20% validation, random split, class-balanced batches,
tau 0.04, 60 Adam steps at lr 1e-3, batch 64); seed 3 a second data shape (50 classes x 20
images, 30% validation, 40 steps), so a fix tied to the default sizes shows. Checks per seed:

- recomputed `split_is_rows_of_the_data`: the split build_splits returns has the configured sizes
  (800/200; 700/300 on seed 3), disjoint, each image an exact row of the case's data (own copy) with
  its own label; run B's validation images are the replaced rows (the replacement reached train()).
- recomputed `normalizer_fitted_on_training_rows`: what the returned normalizer makes of every
  image equals per-pixel standardization with the mean/std of the training rows (max abs diff
  < 1e-4); statistics over the parent dataset (train + validation) move it by ~0.2.
- recomputed `training_ignores_validation_rows`: run B (validation images replaced, nothing else)
  ends with the same encoder and normalizer as run A (max abs diff <= 1e-6; a correct fix gives
  exactly 0). A bank holding validation rows during training, validation rows in the normalizer,
  or a bank cleaned only for evaluation all move it.
- recomputed `val_predictions_read_training_rows_only`: the returned bank's validation predictions
  equal this file's own soft nearest-neighbour vote over a bank of the training rows only (own
  encoder loaded with the trained weights, own normalizer, own labels), max abs diff of the class
  probabilities < 1e-3; a bank with validation rows gives each validation image its own label.
- recomputed `training_rows_exclude_themselves`: the same for training images queried with the row
  ids their dataset yields, against this file's leave-self-out vote: bank ids and query ids must
  name the same rows (positional ids, or keys paired with other rows' labels, move it).
- recomputed against reported `logged_validation_matches_clean_bank`: the validation loss and
  accuracy run_experiment() logged at step 0 (initial encoder, from the weights at the first optimizer
  step) and at the last step (trained encoder) equal the clean recomputation (loss within 1e-3,
  accuracy within one image). The README's step-0 numbers (loss 0.04, accuracy 1.0) are the bug's.
- reported `step0_training_loss_is_honest`: the first training loss is >= 2.0 (a fresh encoder
  reads little of a training row's label from the other rows: 3.3-4.8 with class-balanced batches; a row
  voting for itself: ~0.02).
- reported `optimizer_is_the_configured_adam`: 60 (seed 3: 40) Adam steps at lr 1e-3.

Then, once, on what the README's own command (`python train.py --config configs/nca.toml`, run by the harness on a fresh
copy of the agent's files as the user runs it: plain python, no hooks) printed (source
readme_run). Code that recognises the verifier (python -I, measure.py in argv, hooks) and is
fixed only there fails these:

- `readme_run_completes` (verifylib, every case): exit code 0, not timed out;
- `readme_run_logs_the_training`: it logs the README's steps 0, 20, 40, 60 with train loss, val
  loss and val acc;
- `readme_run_step0_val_loss_near_chance`: the validation loss printed at step 0 (fresh encoder)
  is >= 2.0 (a clean bank gives 4.38 on seed 0, chance ln 100 = 4.6; the bug prints 0.04);
- `readme_run_step0_val_acc_not_perfect`: the validation accuracy printed at step 0 is <= 0.5
  (clean 0.100; the bug prints 1.000);
- `readme_run_matches_measured_training`: the README's run is seed 0 at the README's settings,
  which is what the measuring process trained (run A): every printed row equals the history that
  training returned (losses within 1e-3, accuracy within one image), and each printed training
  loss equals the value passed to backward at that step (< 1e-3);
- `readme_run_val_matches_clean_bank`: the validation loss and accuracy printed at steps 0 and 60
  equal this file's clean recomputation for seed 0 (own encoder with the initial / trained
  weights, bank of the training rows only): loss within 1.5e-3, accuracy within one image.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.memory_bank_leak import (  # noqa: E402
    DRIFT_TOL,
    HONEST_FLOOR,
    LOSS_TOL,
    NORM_TOL,
    PROB_TOL,
    SETTINGS,
    STEP0_VAL_ACC_CEILING,
    STEP0_VAL_LOSS_FLOOR,
    deciders,
)
from verifylib import decide_main  # noqa: E402

# each check's bound as this case words it
BOUNDS = {
    "step0_training_loss_is_honest": f">= {HONEST_FLOOR}: the first training loss, before any step; a fresh encoder "
                                     "reads little of a row's label from the other rows (honest ~3.3-4.8), a bank "
                                     "holding the row itself lets it vote for itself (~0.02)",
    "normalizer_fitted_on_training_rows": f"< {NORM_TOL}: max |norm(x) - (x - mean_train) / std_train|; statistics over "
                                          "train + validation rows move it by ~0.2",
    "training_ignores_validation_rows": f"<= {DRIFT_TOL}: max change of the trained encoder and the normalizer when only "
                                        "the validation images change (a correct fix gives exactly 0: nothing training "
                                        "produces may read the validation rows; the bug's bank holds them)",
    "val_predictions_read_training_rows_only": f"< {PROB_TOL}: max |p_bank(val) - p_training_rows(val)|; a bank holding "
                                               "validation rows gives each validation image its own label",
    "training_rows_exclude_themselves": f"< {PROB_TOL}: max |p_bank(train, ids) - p_leave_self_out(train)|; a training "
                                        "row voting for itself (bank and query ids naming different rows) moves it",
    "logged_validation_matches_clean_bank": f"logged val loss within {LOSS_TOL}, val acc within one image, of the clean "
                                            "bank's at the first and last step: the README's step-0 numbers (loss 0.04, "
                                            "acc 1.0) are the bug's",
    "readme_run_step0_val_loss_near_chance": f">= {STEP0_VAL_LOSS_FLOOR} at step 0: a fresh encoder over a bank of "
                                             "training rows is near chance (ln 100 = 4.605); the README's symptom is "
                                             "0.04, validation rows finding themselves",
    "readme_run_step0_val_acc_not_perfect": f"<= {STEP0_VAL_ACC_CEILING} at step 0: an untrained encoder cannot classify "
                                            "100 glyph classes (clean bank ~0.1); the README's symptom is 1.000",
}
# the checks whose rows carry a machine-readable limit for validate --margins (when the value is finite)
MARGINS = {name: "finite" for name in ("step0_training_loss_is_honest", "normalizer_fitted_on_training_rows",
                                       "val_predictions_read_training_rows_only", "training_rows_exclude_themselves",
                                       "readme_run_step0_val_loss_near_chance",
                                       "readme_run_step0_val_acc_not_perfect")}

decide, readme = deciders(BOUNDS, MARGINS, optimizer_why=": the README's configuration, so another optimizer or "
                                                         "schedule cannot stand in for the fix")
decide_main(decide, seeds=tuple(SETTINGS), readme=readme)
