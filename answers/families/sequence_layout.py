"""The sequence-layout family: case_04 and hard_case_04 turn batch-major frames into the GRU's
time-major input with a reshape (or view), so each sequence the GRU reads is stitched from frames of
several recordings. Both verifiers train at the README's configuration, regenerate the same gesture
recordings, and test the same invariant: a recording's output depends only on that recording, never on
the other rows of its batch or on their padding.

Measuring (``measure_sequence_model``, beside the agent's code) records the training and the trained
model's logits evaluated alone, in the README's batches and in shuffled batches, and a training-mode
forward on a permuted batch. Deciding (the helpers after it; they never import the agent's code)
validates those artifacts and makes the README-run checks both cases share; each decide.py words its
own per-seed checks. torch is imported inside the functions, as the halves did.
"""

import math
import statistics

from verifylib import Unreadable, check_printed_rows_match_measured, logged_rows, max_diff

N_CHANNELS, N_CLASSES, HOP = 6, 4, 4
N_TRAIN, N_VAL, EVAL_BATCH = 2000, 500, 100  # the README's data sizes and evaluation batch
VAL_SEED_OFFSET, PERM_BATCH = 100, 32  # the validation set is make_dataset(N_VAL, seed + 100)


def make_recordings(labels, n_samples, g):
    import torch

    n, s_max = len(labels), int(n_samples.max())
    pos = torch.arange(s_max)[None, :].float()
    t = 2.0 * pos / (n_samples[:, None] - 1).float() - 1.0
    slope = torch.stack([1.0 - 2.0 * (labels // 2), 1.0 - 2.0 * (labels % 2)], dim=1).float()
    x = 0.8 * torch.randn(n, s_max, N_CHANNELS, generator=g)
    x[:, :, :2] += 1.5 * t[:, :, None] * slope[:, None, :]
    phase = torch.rand(n, 1, N_CHANNELS - 2, generator=g) * 6.28
    x[:, :, 2:] += torch.sin(6.0 * t[:, :, None] + phase)
    return x


def frame(raw, hop=HOP):
    n, s, c = raw.shape
    return raw[:, : s // hop * hop].reshape(n, s // hop, hop, c).mean(dim=2)


def make_dataset(n, seed=0, min_frames=12, max_frames=28):
    """The case's make_dataset (data.py in case_04, synth.py in hard_case_04), copied so the agent cannot
    change the data: a list of (frames, channels) recordings and their labels."""
    import torch

    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, N_CLASSES, (n,), generator=g)
    frames = torch.randint(min_frames, max_frames + 1, (n,), generator=g)
    x = frame(make_recordings(labels, frames * HOP, g))
    return [x[i, : int(f)].clone() for i, f in enumerate(frames)], labels


# --- measuring (runs with the agent's code) ------------------------------------------------------------

MAX_BY_STEP = 500
SHUFFLE_SEED, SHUFFLED_BATCH, PERM_SEED = 77, 37, 55


def collate(xs):
    import torch

    lengths = torch.tensor([len(x) for x in xs])
    out = torch.zeros(len(xs), int(lengths.max()), xs[0].shape[1])
    for i, x in enumerate(xs):
        out[i, : len(x)] = x
    return out, lengths


def logits_in_batches(net, xs, order, batch_size):
    """Logits of every recording, evaluated in batches of ``batch_size`` taken in ``order``; rows in input order."""
    import torch

    out = torch.empty(len(xs), N_CLASSES)
    for i in range(0, len(order), batch_size):
        idx = order[i:i + batch_size]
        out[idx] = net(*collate([xs[j] for j in idx])).float()
    return out


def measure_sequence_model(seed, rec, *, run_training, patched, lr_of, record_lrs, history_row, returns,
                           model_without_dropout, save_state):
    """One seed (measure.py's docstring): the training, then the trained model's logits and a training-mode
    forward on a permuted batch.

    ``run_training()`` -> (model, history): the case's entry point at the README's configuration, run with
    ``make_dataset`` replaced by this file's copy in the ``patched`` workspace modules, the optimizer's
    steps and the values passed to backward watched; ``lr_of(opt)``: what a step records of the learning
    rate; ``record_lrs(rec, lrs)`` puts them; ``history_row(row)``: a history row as recorded;
    ``returns``: the error when run_training returns something else; ``model_without_dropout()``: the
    case's network with dropout 0, for the trained weights; ``save_state``: also save the trained
    state_dict (the decider rebuilds the model from it)."""
    import torch
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    steps, backward_values = [], []

    def on_step(opt, args, kwargs):
        steps.append((type(opt).__name__, lr_of(opt)))

    backward = torch.autograd.backward

    def recording_backward(tensors, *args, **kwargs):
        t = tensors[0] if isinstance(tensors, (tuple, list)) else tensors
        if isinstance(t, torch.Tensor) and t.numel() == 1:
            backward_values.append(float(t.detach()))
        return backward(tensors, *args, **kwargs)

    originals = {m: m.make_dataset for m in patched}
    for m in patched:
        m.make_dataset = make_dataset
    torch.autograd.backward = recording_backward
    handle = register_optimizer_step_pre_hook(on_step)
    try:
        result = run_training()
    finally:
        handle.remove()
        torch.autograd.backward = backward
        for m, fn in originals.items():
            m.make_dataset = fn
    if not isinstance(result, tuple) or len(result) != 2:
        raise TypeError(returns)
    model, history = result
    rec.put("optimizer_steps", len(steps))
    rec.put("optimizers", sorted({kind for kind, _ in steps}))
    record_lrs(rec, [lr for _, lr in steps])
    rec.put("backward_values", backward_values[-50:])
    rec.put("backward_calls", len(backward_values))
    rec.put("backward_values_by_step", backward_values[:MAX_BY_STEP])
    rec.put("history", [history_row(h) for h in history][:100]
            if isinstance(history, list) and all(isinstance(h, dict) for h in history) else str(history)[:200])
    if save_state:
        rec.save("state", model.state_dict())

    xs_val, _ = make_dataset(N_VAL, seed=seed + VAL_SEED_OFFSET)
    n = len(xs_val)
    shuffled = torch.randperm(n, generator=torch.Generator().manual_seed(SHUFFLE_SEED + seed)).tolist()
    model.eval()
    with torch.no_grad():
        logits = {
            "alone": logits_in_batches(model, xs_val, list(range(n)), 1),
            "batch100": logits_in_batches(model, xs_val, list(range(n)), EVAL_BATCH),
            "shuffled37": logits_in_batches(model, xs_val, shuffled, SHUFFLED_BATCH),
        }
    rec.save("logits", logits)

    xs_train, _ = make_dataset(N_TRAIN, seed=seed)
    g = torch.Generator().manual_seed(PERM_SEED + seed)
    rows = torch.randperm(len(xs_train), generator=g)[:PERM_BATCH].tolist()
    perm = torch.randperm(PERM_BATCH, generator=g)
    x, lengths = collate([xs_train[j] for j in rows])
    net = model_without_dropout()
    net.load_state_dict(model.state_dict())
    net.train()  # with gradients on, as in training
    rec.save("train_mode", {"out": net(x, lengths).float(), "out_permuted": net(x[perm], lengths[perm]).float(),
                            "perm": perm})


# --- deciding (never imports the agent's code) ---------------------------------------------------------

STEPS = 150
LOGIT_TOL, NLL_BOUND, LOSS_BOUND = 1e-4, 0.1, 0.1
LOGITS = ["alone", "batch100", "shuffled37"]
README_SEED, LOG_EVERY = 0, 25  # the README's run: seed 0 at the measured settings
README_STEPS = list(range(0, STEPS + 1, LOG_EVERY))
VAL_ACC_FLOOR, PRINTED_LOSS_TOL = 0.9, 1e-3
README_SEED_VALUES = {}  # val loss / acc of the README seed's batch-100 logits, for the checks on the README's run
FIELDS = {"train loss": "loss", "val loss": "val_loss", "val acc": "val_acc"}


def final_training_loss(m):
    """The median of the last 25 values passed to backward (inf when there are none)."""
    values = [float(v) for v in m.value("backward_values", list) if isinstance(v, (int, float))][-25:]
    return statistics.median(values) if values else float("inf")


def validation_logits(m):
    """The three sets of validation logits, each (N_VAL, N_CLASSES) floats, or Unreadable."""
    logits = m.tensors("logits", keys=LOGITS)
    for name, t in logits.items():
        if tuple(t.shape) != (N_VAL, N_CLASSES) or not t.is_floating_point():
            raise Unreadable(f"logits '{name}' have shape {tuple(t.shape)} {t.dtype}, expected ({N_VAL}, {N_CLASSES})")
    return logits


def batch_deviations(logits):
    """Max abs difference of the batched logits from the single-recording ones, and how many predictions
    flip, for the README's batches of 100 and the shuffled batches of 37."""
    devs = {name: round(max_diff(logits[name], logits["alone"]), 7) for name in ("batch100", "shuffled37")}
    flips = {name: int((logits[name].argmax(-1) != logits["alone"].argmax(-1)).sum()) for name in devs}
    return devs, flips


def train_mode_deviation(m):
    """max |f(x[perm]) - f(x)[perm]| of the training-mode forward on a batch of PERM_BATCH, or Unreadable."""
    tm = m.tensors("train_mode", keys=["out", "out_permuted", "perm"])
    perm = tm["perm"].long()
    if sorted(perm.tolist()) != list(range(PERM_BATCH)) or tuple(tm["out"].shape) != (PERM_BATCH, N_CLASSES):
        raise Unreadable("train_mode artifact is not a permutation of a batch of 32 with 4 logits each")
    return max_diff(tm["out_permuted"], tm["out"][perm])


def remember_readme_seed(seed, logits, y):
    """For the README's seed, the val loss and accuracy of its logits in the README's batches of 100."""
    import torch.nn.functional as F

    if seed == README_SEED:
        b100 = logits["batch100"].double()
        README_SEED_VALUES["val loss"] = F.cross_entropy(b100, y).item()
        README_SEED_VALUES["val acc"] = (b100.argmax(-1) == y).double().mean().item()


def readme_rows(run, checks):
    """``readme_run_logs_the_training``; the printed rows by step and the last step's row."""
    rows = logged_rows(run["stdout"])
    logged = sorted(rows)
    checks.check("readme_run_logs_the_training",
                 logged == README_STEPS and all(set(FIELDS) <= set(rows[s]) for s in logged),
                 value=logged[:20], bound=f"steps {README_STEPS} with train loss, val loss, val acc", source="readme_run")
    return rows, rows.get(STEPS, {})


def check_readme_against_measured(rows, measured, checks):
    """``readme_run_matches_measured_training`` and ``readme_run_val_matches_recomputed_logits``: the printed
    rows are the README seed's measured training, and the printed final validation numbers are what this
    process recomputed from that seed's logits."""
    acc_tol = 1.0 / N_VAL + 6e-4
    check_printed_rows_match_measured(
        checks, rows, measured.get(README_SEED),
        {label: (key, acc_tol if label == "val acc" else PRINTED_LOSS_TOL) for label, key in FIELDS.items()},
        STEPS, f"printed rows = seed-0 history (losses within {PRINTED_LOSS_TOL}, acc within one recording) "
               "and backward values")
    last = rows.get(STEPS, {})
    got = {k: {"printed": last.get(k), "recomputed": round(v, 5)} for k, v in README_SEED_VALUES.items()}
    checks.check("readme_run_val_matches_recomputed_logits",
                 len(got) == 2 and abs(last.get("val loss", math.nan) - README_SEED_VALUES["val loss"]) < PRINTED_LOSS_TOL
                 and abs(last.get("val acc", math.nan) - README_SEED_VALUES["val acc"]) < acc_tol,
                 value=got or "seed 0 not recomputed",
                 bound=f"printed step-{STEPS} val loss within {PRINTED_LOSS_TOL}, val acc within one recording",
                 source="readme_run")
