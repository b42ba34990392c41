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

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import Unreadable, decide_main, logged_rows, max_diff  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

DIM, TAU, LR, OTHER_DRAW = 64, 0.04, 1e-3, 1000
# seed -> (classes, images per class, validation images, optimizer steps): the measuring half's settings
SETTINGS = {0: (100, 10, 200, 60), 1: (100, 10, 200, 60), 2: (100, 10, 200, 60), 3: (50, 20, 300, 40)}
NORM_TOL, DRIFT_TOL, PROB_TOL, LOSS_TOL, HONEST_FLOOR = 1e-4, 1e-6, 1e-3, 1e-3, 2.0
README_SEED, LOG_EVERY = 0, 20  # the README's run: configs/nca.toml, i.e. seed 0 at the measured settings
STEP0_VAL_LOSS_FLOOR, STEP0_VAL_ACC_CEILING = 2.0, 0.5
PRINTED_LOSS_TOL, PRINTED_CLEAN_LOSS_TOL = 1e-3, 1.5e-3
README_SEED_VALUES = {}  # step -> (val loss, val acc) this file recomputed for seed 0 with a clean bank


def _glyphs(n_classes, size, gen):
    base = torch.zeros(n_classes, size, size)
    for c in range(n_classes):
        for _ in range(4):
            r, q = torch.randint(1, size - 1, (2,), generator=gen).tolist()
            length = int(torch.randint(3, size - 2, (1,), generator=gen))
            if torch.rand(1, generator=gen) < 0.5:
                base[c, r, q:q + length] = 1.0
            else:
                base[c, r:r + length, q] = 1.0
    return base


def make_glyphs(n_classes=100, per_class=10, size=12, noise=0.45, seed=0):
    """The case's data, reproduced here so the agent cannot change it."""
    glyphs = _glyphs(n_classes, size, torch.Generator().manual_seed(4321))
    g = torch.Generator().manual_seed(seed)
    labels = torch.arange(n_classes).repeat_interleave(per_class)
    images = glyphs[labels]
    shifts = torch.randint(-1, 2, (len(labels), 2), generator=g)
    images = torch.stack([torch.roll(im, tuple(s.tolist()), dims=(0, 1)) for im, s in zip(images, shifts)])
    contrast = 0.6 + 0.8 * torch.rand(len(labels), 1, 1, generator=g)
    images = contrast * images + noise * torch.randn(images.shape, generator=g)
    return images.unsqueeze(1), labels


class Encoder(nn.Module):
    """The case's encoder."""

    def __init__(self, dim=DIM, width=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.ReLU(),
            nn.Conv2d(width, width, 3, stride=2, padding=1), nn.ReLU(),
            nn.Flatten(), nn.Linear(width * 6 * 6, dim),
        )

    def forward(self, x):
        return F.normalize(self.net(x), dim=-1)


def load_encoder(state):
    """The agent's encoder weights in this file's Encoder, its three layers matched by weight shape."""
    model = Encoder()
    ours = {tuple(model.state_dict()[f"net.{i}.weight"].shape): f"net.{i}" for i in (0, 2, 5)}
    mapped = {}
    for key, weight in state.items():
        if key.endswith("weight") and weight.dim() > 1 and tuple(weight.shape) in ours:
            layer = ours.pop(tuple(weight.shape))
            bias = state.get(key[: -len("weight")] + "bias")
            if bias is None:
                raise Unreadable(f"the encoder has no bias beside '{key}'")
            mapped[f"{layer}.weight"], mapped[f"{layer}.bias"] = weight, bias
    if ours or len(mapped) != len(state):
        raise Unreadable(f"the encoder's parameters {[(k, tuple(v.shape)) for k, v in state.items()][:8]} "
                         "are not the case's Encoder (conv 1-32, conv 32-32 stride 2, linear 1152-64)")
    try:
        model.load_state_dict({k: v.float() for k, v in mapped.items()})
    except RuntimeError as exc:
        raise Unreadable(f"the encoder weights do not fit the case's Encoder: {exc}"[:300]) from exc
    return model.eval()


def rows_of(images, full):
    index = {full[i].numpy().tobytes(): i for i in range(len(full))}
    return [index.get(im.contiguous().float().numpy().tobytes(), -1) for im in images]


def vote(queries, keys, key_rows, onehot, query_rows=None):
    """Class probabilities of the soft nearest-neighbour vote (leave-self-out when query_rows is given)."""
    sims = queries @ keys.T / TAU
    if query_rows is not None:
        sims = sims.masked_fill(query_rows[:, None] == key_rows[None, :], float("-inf"))
    return sims.softmax(-1) @ onehot


def scores(probs, labels):
    logp = probs.clamp_min(1e-12).log()
    return F.nll_loss(logp, labels).item(), (logp.argmax(-1) == labels).float().mean().item()


def decide(seed, m, checks):
    N_CLASSES, PER_CLASS, N_VAL, STEPS = SETTINGS[seed]
    n_steps, kinds, lrs = m.number("optimizer_steps"), m.value("optimizers", list), m.value("learning_rates", list)
    checks.check("optimizer_is_the_configured_adam", n_steps == STEPS and kinds == ["Adam"] and lrs == [LR],
                 value={"steps": n_steps, "optimizers": kinds, "lrs": lrs}, bound=f"{STEPS} Adam steps at lr {LR}: the README's "
                 "configuration, so another optimizer or schedule cannot stand in for the fix", source="reported")
    first = m.value("backward_values", list)
    first = float(first[0]) if first and isinstance(first[0], (int, float)) else float("nan")
    checks.check("step0_training_loss_is_honest", first >= HONEST_FLOOR, value=round(first, 4),
                 bound=f">= {HONEST_FLOOR}: the first training loss, before any step; a fresh encoder reads little of "
                       "a row's label from the other rows (honest ~3.3-4.8), a bank holding the row itself lets it vote "
                       "for itself (~0.02)", source="reported",
                 limit=HONEST_FLOOR if math.isfinite(first) else None, sense=">" if math.isfinite(first) else None)

    full_x, full_y = make_glyphs(N_CLASSES, PER_CLASS, seed=seed)
    split = m.tensors("split", keys=["train_x", "train_y", "val_x", "val_y"])
    tr_rows, va_rows = rows_of(split["train_x"], full_x), rows_of(split["val_x"], full_x)
    tr_rows_t, va_rows_t = torch.tensor(tr_rows), torch.tensor(va_rows)
    other_x, _ = make_glyphs(N_CLASSES, PER_CLASS, seed=seed + OTHER_DRAW)
    run_b = m.tensors("run_b", keys=["normalized", "val_x"])
    problems = []
    if len(va_rows) != N_VAL or len(tr_rows) != len(full_x) - N_VAL:
        problems.append(f"split sizes {len(tr_rows)}/{len(va_rows)}, expected {len(full_x) - N_VAL}/{N_VAL}")
    if -1 in tr_rows or -1 in va_rows:
        problems.append("images that are not rows of the data")
    elif set(tr_rows) & set(va_rows) or len(set(tr_rows) | set(va_rows)) != len(full_x):
        problems.append("splits overlap or leave rows out")
    elif not (torch.equal(split["train_y"].long(), full_y[tr_rows_t])
              and torch.equal(split["val_y"].long(), full_y[va_rows_t])):
        problems.append("labels do not match the images")
    elif not torch.equal(run_b["val_x"].float(), other_x[va_rows_t]):
        problems.append("run B's validation images are not the replaced rows")
    checks.check("split_is_rows_of_the_data", not problems, value="; ".join(problems) or "ok",
                 bound=f"{len(full_x) - N_VAL}/{N_VAL} disjoint rows with their labels; run B sees the replaced rows")
    if problems:
        return

    train_x = full_x[tr_rows_t]
    mean, std = train_x.mean(0), train_x.std(0)
    normalized = (full_x - mean) / std
    pred = m.tensors("predictions", keys=["normalized", "val_probs", "train_probs"])
    diff = max_diff(pred["normalized"], normalized)
    checks.check("normalizer_fitted_on_training_rows", diff < NORM_TOL, value=round(diff, 7),
                 bound=f"< {NORM_TOL}: max |norm(x) - (x - mean_train) / std_train|; statistics over train + "
                       "validation rows move it by ~0.2",
                 limit=NORM_TOL if math.isfinite(diff) else None, sense="<" if math.isfinite(diff) else None)

    enc_a, enc_b = m.tensors("encoder"), m.tensors("encoder_b")
    drift = max((max_diff(enc_a[k], enc_b[k]) if k in enc_b else float("inf")) for k in enc_a)
    norm_drift = max_diff(pred["normalized"], run_b["normalized"])
    checks.check("training_ignores_validation_rows", drift <= DRIFT_TOL and norm_drift <= DRIFT_TOL
                 and set(enc_a) == set(enc_b),
                 value={"encoder_max_abs_diff": drift, "normalizer_max_abs_diff": norm_drift},
                 bound=f"<= {DRIFT_TOL}: max change of the trained encoder and the normalizer when only the "
                       "validation images change (a correct fix gives exactly 0: nothing training produces may read "
                       "the validation rows; the bug's bank holds them)")

    onehot = F.one_hot(full_y, N_CLASSES).float()
    with torch.no_grad():
        emb = load_encoder(enc_a)(normalized)
        keys, key_onehot = emb[tr_rows_t], onehot[tr_rows_t]
        val_probs = vote(emb[va_rows_t], keys, tr_rows_t, key_onehot)
        train_probs = vote(emb[tr_rows_t], keys, tr_rows_t, key_onehot, query_rows=tr_rows_t)
        emb0 = load_encoder(m.tensors("encoder_initial"))(normalized)
        val_probs0 = vote(emb0[va_rows_t], emb0[tr_rows_t], tr_rows_t, key_onehot)
    diff = max_diff(pred["val_probs"], val_probs)
    checks.check("val_predictions_read_training_rows_only", diff < PROB_TOL, value=round(diff, 6),
                 bound=f"< {PROB_TOL}: max |p_bank(val) - p_training_rows(val)|; a bank holding validation rows "
                       "gives each validation image its own label",
                 limit=PROB_TOL if math.isfinite(diff) else None, sense="<" if math.isfinite(diff) else None)
    diff = max_diff(pred["train_probs"], train_probs)
    checks.check("training_rows_exclude_themselves", diff < PROB_TOL, value=round(diff, 6),
                 bound=f"< {PROB_TOL}: max |p_bank(train, ids) - p_leave_self_out(train)|; a training row voting "
                       "for itself (bank and query ids naming different rows) moves it",
                 limit=PROB_TOL if math.isfinite(diff) else None, sense="<" if math.isfinite(diff) else None)

    history = {}
    for h in m.value("history", list):
        if isinstance(h, dict) and isinstance(h.get("step"), (int, float)):
            history[int(h["step"])] = h
    logged = {}
    ok = True
    for step, probs in ((0, val_probs0), (STEPS, val_probs)):
        loss, acc = scores(probs, full_y[va_rows_t])
        if seed == README_SEED:
            README_SEED_VALUES[step] = (loss, acc)
        h = history.get(step, {})
        got_loss, got_acc = h.get("val_loss"), h.get("val_acc")
        good = (isinstance(got_loss, float) and isinstance(got_acc, float)
                and abs(got_loss - loss) < LOSS_TOL and abs(got_acc - acc) <= 1.0 / N_VAL + 1e-9)
        ok &= good
        logged[f"step {step}"] = {"logged": [got_loss, got_acc], "clean": [round(loss, 4), round(acc, 3)]}
    checks.check("logged_validation_matches_clean_bank", ok, value=logged,
                 bound=f"logged val loss within {LOSS_TOL}, val acc within one image, of the clean bank's at the "
                       "first and last step: the README's step-0 numbers (loss 0.04, acc 1.0) are the bug's")


def readme(run, measured, checks):
    steps = SETTINGS[README_SEED][3]
    n_val = SETTINGS[README_SEED][2]
    fields = {"train loss": "loss", "val loss": "val_loss", "val acc": "val_acc"}
    rows = logged_rows(run["stdout"])
    logged = sorted(rows)
    readme_steps = list(range(0, steps + 1, LOG_EVERY))
    checks.check("readme_run_logs_the_training",
                 logged == readme_steps and all(set(fields) <= set(rows[s]) for s in logged),
                 value=logged[:20], bound=f"steps {readme_steps} with train loss, val loss, val acc", source="readme_run")
    first = rows.get(0, {})
    val_loss0, val_acc0 = first.get("val loss", math.nan), first.get("val acc", math.nan)
    checks.check("readme_run_step0_val_loss_near_chance", val_loss0 >= STEP0_VAL_LOSS_FLOOR, value=val_loss0,
                 bound=f">= {STEP0_VAL_LOSS_FLOOR} at step 0: a fresh encoder over a bank of training rows is near "
                       "chance (ln 100 = 4.605); the README's symptom is 0.04, validation rows finding themselves",
                 source="readme_run", limit=STEP0_VAL_LOSS_FLOOR if math.isfinite(val_loss0) else None,
                 sense=">" if math.isfinite(val_loss0) else None)
    checks.check("readme_run_step0_val_acc_not_perfect", val_acc0 <= STEP0_VAL_ACC_CEILING, value=val_acc0,
                 bound=f"<= {STEP0_VAL_ACC_CEILING} at step 0: an untrained encoder cannot classify 100 glyph "
                       "classes (clean bank ~0.1); the README's symptom is 1.000",
                 limit=STEP0_VAL_ACC_CEILING if math.isfinite(val_acc0) else None,
                 sense="<" if math.isfinite(val_acc0) else None,
                 source="readme_run")

    m = measured.get(README_SEED)
    history = {}
    by_step = []
    if m is not None:
        for h in m.value("history", list):
            if isinstance(h, dict) and isinstance(h.get("step"), (int, float)):
                history[int(h["step"])] = h
        by_step = [float(v) for v in m.value("backward_values_by_step", list)]
    acc_tol = 1.0 / n_val + 6e-4
    bad = {}
    for s in logged:
        h = history.get(s, {})
        for label, key in fields.items():
            printed, got = rows[s].get(label, math.nan), h.get(key)
            tol = acc_tol if label == "val acc" else PRINTED_LOSS_TOL
            if not isinstance(got, (int, float)) or not abs(printed - got) < tol:
                bad[f"step {s} {label}"] = {"printed": printed, "measured": got}
        if s < steps and not (s < len(by_step) and abs(rows[s].get("train loss", math.nan) - by_step[s]) < PRINTED_LOSS_TOL):
            bad[f"step {s} backward"] = {"printed": rows[s].get("train loss"),
                                         "measured": by_step[s] if s < len(by_step) else None}
    checks.check("readme_run_matches_measured_training", bool(logged) and not bad,
                 value=dict(list(bad.items())[:8]) or "all printed rows match",
                 bound=f"printed rows = seed-0 history (losses within {PRINTED_LOSS_TOL}, acc within one image) "
                       "and backward values", source="readme_run")
    clean = {}
    for s in (0, steps):
        printed = rows.get(s, {})
        loss, acc = README_SEED_VALUES.get(s, (math.nan, math.nan))
        clean[f"step {s}"] = {"printed": [printed.get("val loss"), printed.get("val acc")],
                              "clean": [round(loss, 4), round(acc, 3)]}
        clean[f"step {s}"]["ok"] = (abs(printed.get("val loss", math.nan) - loss) < PRINTED_CLEAN_LOSS_TOL
                                    and abs(printed.get("val acc", math.nan) - acc) < acc_tol)
    checks.check("readme_run_val_matches_clean_bank", all(v["ok"] for v in clean.values()), value=clean,
                 bound=f"printed val loss within {PRINTED_CLEAN_LOSS_TOL}, val acc within one image, at steps 0 and "
                       f"{steps}", source="readme_run")


decide_main(decide, seeds=tuple(SETTINGS), readme=readme)
