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
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import Unreadable, decide_main, logged_rows, max_diff  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

N_VAL, N_CLASSES, VAL_SEED_OFFSET, PERM_BATCH = 500, 4, 100, 32
STEPS, LR = 150, 3e-3
LOGIT_TOL, NLL_BOUND, LOSS_BOUND = 1e-4, 0.1, 0.1
LOGITS = ["alone", "batch100", "shuffled37"]
README_SEED, LOG_EVERY = 0, 25  # the README's run: Config() defaults, i.e. seed 0 at the measured settings
README_STEPS = list(range(0, STEPS + 1, LOG_EVERY))
VAL_ACC_FLOOR, TRAIN_LOSS_BOUND, PRINTED_LOSS_TOL = 0.9, 0.3, 1e-3
README_SEED_VALUES = {}  # val loss / acc of seed 0's batch-100 logits, for the checks on the README's run


def val_labels(seed):
    """The labels of the case's validation set (data.make_dataset draws them first from its generator)."""
    g = torch.Generator().manual_seed(seed + VAL_SEED_OFFSET)
    return torch.randint(0, N_CLASSES, (N_VAL,), generator=g)


def decide(seed, m, checks):
    n_steps, kinds, lrs = m.number("optimizer_steps"), m.value("optimizers", list), m.value("learning_rates", list)
    checks.check("optimizer_is_the_configured_adam", n_steps == STEPS and kinds == ["Adam"] and lrs == [LR],
                 value={"steps": n_steps, "optimizers": kinds, "lrs": lrs}, bound=f"{STEPS} Adam steps at lr {LR}",
                 source="reported")
    values = [float(v) for v in m.value("backward_values", list) if isinstance(v, (int, float))][-25:]
    final = statistics.median(values) if values else float("inf")
    checks.check("training_loss_well_below_chance", final < LOSS_BOUND,
                 value=round(final, 4), limit=LOSS_BOUND, sense="<", source="reported",
                 bound=f"< {LOSS_BOUND}: median of the last 25 values passed to backward "
                       f"({m.number('backward_calls'):.0f} calls); sequences stitched from several recordings keep "
                       "it near chance, ln 4 = 1.386")

    logits = m.tensors("logits", keys=LOGITS)
    for name, t in logits.items():
        if tuple(t.shape) != (N_VAL, N_CLASSES) or not t.is_floating_point():
            raise Unreadable(f"logits '{name}' have shape {tuple(t.shape)} {t.dtype}, expected ({N_VAL}, {N_CLASSES})")
    devs = {name: round(max_diff(logits[name], logits["alone"]), 7) for name in ("batch100", "shuffled37")}
    y = val_labels(seed)
    flips = {name: int((logits[name].argmax(-1) != logits["alone"].argmax(-1)).sum()) for name in devs}
    checks.check("eval_logits_independent_of_batch", all(d < LOGIT_TOL for d in devs.values()),
                 value={"max_abs_diff_vs_alone": devs, "prediction_flips": flips},
                 bound=f"< {LOGIT_TOL}")

    tm = m.tensors("train_mode", keys=["out", "out_permuted", "perm"])
    perm = tm["perm"].long()
    if sorted(perm.tolist()) != list(range(PERM_BATCH)) or tuple(tm["out"].shape) != (PERM_BATCH, N_CLASSES):
        raise Unreadable("train_mode artifact is not a permutation of a batch of 32 with 4 logits each")
    dev = max_diff(tm["out_permuted"], tm["out"][perm])
    checks.check("train_mode_forward_is_row_equivariant", dev < LOGIT_TOL, value=round(dev, 7),
                 limit=LOGIT_TOL, sense="<",
                 bound=f"max |f(x[perm]) - f(x)[perm]| < {LOGIT_TOL}: a forward that mixes the rows of a batch "
                       "while training moves it")

    if seed == README_SEED:
        b100 = logits["batch100"].double()
        README_SEED_VALUES["val loss"] = F.cross_entropy(b100, y).item()
        README_SEED_VALUES["val acc"] = (b100.argmax(-1) == y).double().mean().item()
    alone = logits["alone"].double()
    nll = F.cross_entropy(alone, y).item()
    acc = (alone.argmax(-1) == y).double().mean().item()
    checks.check("val_nll_of_single_recordings", nll < NLL_BOUND, value=round(nll, 4), limit=NLL_BOUND, sense="<",
                 bound=f"< {NLL_BOUND}: cross-entropy of the single-recording logits (accuracy {acc:.3f}); training "
                       "on mixed sequences stays at chance, 1.386")


def readme(run, measured, checks):
    fields = {"train loss": "loss", "val loss": "val_loss", "val acc": "val_acc"}
    rows = logged_rows(run["stdout"])
    logged = sorted(rows)
    checks.check("readme_run_logs_the_training",
                 logged == README_STEPS and all(set(fields) <= set(rows[s]) for s in logged),
                 value=logged[:20], bound=f"steps {README_STEPS} with train loss, val loss, val acc", source="readme_run")
    last = rows.get(STEPS, {})
    val_loss, val_acc, train_loss = (last.get(k, math.nan) for k in ("val loss", "val acc", "train loss"))
    checks.check("readme_run_val_loss_below_chance", val_loss < NLL_BOUND, value=val_loss, limit=NLL_BOUND, sense="<",
                 bound=f"< {NLL_BOUND} at step {STEPS} (the bug prints ~1.40; chance 1.386)", source="readme_run")
    checks.check("readme_run_val_acc_near_one", val_acc >= VAL_ACC_FLOOR, value=val_acc,
                 bound=f">= {VAL_ACC_FLOOR} at step {STEPS} (the bug prints ~0.25)", source="readme_run")
    checks.check("readme_run_train_loss_below_chance", train_loss < TRAIN_LOSS_BOUND, value=train_loss,
                 limit=TRAIN_LOSS_BOUND, sense="<",
                 bound=f"< {TRAIN_LOSS_BOUND} at step {STEPS} (the bug prints ~1.36)", source="readme_run")

    m = measured.get(README_SEED)
    history, by_step = {}, []
    if m is not None:
        for h in m.value("history", list):
            if isinstance(h, dict) and isinstance(h.get("step"), (int, float)):
                history[int(h["step"])] = h
        by_step = [float(v) for v in m.value("backward_values_by_step", list)]
    acc_tol = 1.0 / N_VAL + 6e-4
    bad = {}
    for s in logged:
        h = history.get(s, {})
        for label, key in fields.items():
            printed, got = rows[s].get(label, math.nan), h.get(key)
            tol = acc_tol if label == "val acc" else PRINTED_LOSS_TOL
            if not isinstance(got, (int, float)) or not abs(printed - got) < tol:
                bad[f"step {s} {label}"] = {"printed": printed, "measured": got}
        if s < STEPS and not (s < len(by_step) and abs(rows[s].get("train loss", math.nan) - by_step[s]) < PRINTED_LOSS_TOL):
            bad[f"step {s} backward"] = {"printed": rows[s].get("train loss"),
                                         "measured": by_step[s] if s < len(by_step) else None}
    checks.check("readme_run_matches_measured_training", bool(logged) and not bad,
                 value=dict(list(bad.items())[:8]) or "all printed rows match",
                 bound=f"printed rows = seed-0 history (losses within {PRINTED_LOSS_TOL}, acc within one recording) "
                       "and backward values", source="readme_run")
    got = {k: {"printed": last.get(k), "recomputed": round(v, 5)} for k, v in README_SEED_VALUES.items()}
    checks.check("readme_run_val_matches_recomputed_logits",
                 len(got) == 2 and abs(last.get("val loss", math.nan) - README_SEED_VALUES["val loss"]) < PRINTED_LOSS_TOL
                 and abs(last.get("val acc", math.nan) - README_SEED_VALUES["val acc"]) < acc_tol,
                 value=got or "seed 0 not recomputed",
                 bound=f"printed step-{STEPS} val loss within {PRINTED_LOSS_TOL}, val acc within one recording",
                 source="readme_run")


decide_main(decide, readme=readme)
