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
"""

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import Unreadable, decide_main  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

N_VAL, N_CLASSES, VAL_SEED_OFFSET, PERM_BATCH = 500, 4, 100, 32
STEPS, LR = 150, 3e-3
LOGIT_TOL, NLL_BOUND, LOSS_BOUND = 1e-4, 0.1, 0.1
LOGITS = ["alone", "batch100", "shuffled37"]


def val_labels(seed):
    """The labels of the case's validation set (data.make_dataset draws them first from its generator)."""
    g = torch.Generator().manual_seed(seed + VAL_SEED_OFFSET)
    return torch.randint(0, N_CLASSES, (N_VAL,), generator=g)


def max_diff(a, b):
    if a.shape != b.shape:
        return float("inf")
    return (a.double() - b.double()).abs().nan_to_num(float("inf")).max().item()


def decide(seed, m, checks):
    n_steps, kinds, lrs = m.number("optimizer_steps"), m.value("optimizers", list), m.value("learning_rates", list)
    checks.check("optimizer_is_the_configured_adam", n_steps == STEPS and kinds == ["Adam"] and lrs == [LR],
                 value={"steps": n_steps, "optimizers": kinds, "lrs": lrs}, bound=f"{STEPS} Adam steps at lr {LR}",
                 source="reported")
    values = [float(v) for v in m.value("backward_values", list) if isinstance(v, (int, float))][-25:]
    final = statistics.median(values) if values else float("inf")
    checks.check("training_loss_well_below_chance", final < LOSS_BOUND,
                 value={"median_last_25": round(final, 4), "backward_calls": m.number("backward_calls")},
                 bound=f"< {LOSS_BOUND} (chance ln 4 = 1.386)", source="reported")

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
                 bound=f"max |f(x[perm]) - f(x)[perm]| < {LOGIT_TOL}")

    alone = logits["alone"].double()
    nll = F.cross_entropy(alone, y).item()
    acc = (alone.argmax(-1) == y).double().mean().item()
    checks.check("val_nll_of_single_recordings", nll < NLL_BOUND, value={"nll": round(nll, 4), "acc": round(acc, 3)},
                 bound=f"< {NLL_BOUND} (chance 1.386)")


decide_main(decide)
