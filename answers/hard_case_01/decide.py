"""hard_case_01, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-h01-5c2e9a7d41b08f36

The bug: AttnPoolNet.forward (the model configs/experiment.toml selects) returns probabilities,
and that is what the trainer's CrossEntropyLoss receives. The project's contract (the trainer's
CrossEntropyLoss, the metrics, temperature calibration, export.ServingModel) is that a model
returns class scores: logits, or anything softmax-equivalent to them. Checks per seed, all at the
README's settings (`--config configs/experiment.toml`, seed set per run):

- reported: the optimizer stepped 200 times as SGD with the schedule's peak lr 0.1, as the
  README's config runs it (a raised lr, another optimizer or a shorter run cannot stand in);
- reported: no cross-entropy call received probability rows, and every NLL call received
  normalized log-probabilities;
- reported: the loss the training differentiates ends below 1.0 (median of its last 50
  values; cross-entropy over probability rows of 8 classes cannot go under ln(1 + 7/e) = 1.27);
- the class distribution every consumer reads is the trained scores' softmax, measured at the
  consumers, not at what forward returns (issue 22: a fix that keeps a documented probability
  output and hands every consumer its log is as right as one that returns logits). The decider
  loads the trained weights into its own copy of AttnPoolNet (matched by order and shape, so
  renamed modules are fine) and recomputes the scores:
  - reported against recomputed `loss_reads_the_models_log_distribution`: the input of the last
    training step's cross-entropy (read through log_softmax) or NLL (read as it is), against
    log_softmax of the scores of the batch the model received (max abs difference < 1e-3).
    Probabilities (the bug: ~30), clamped log-probabilities (14-19 where the clamp bites) and
    rescaled probabilities move it; logits, log_softmax, logits minus logsumexp, or the log of
    probabilities do not;
  - reported against recomputed `export_serves_the_scores_softmax`: what the ServingModel that
    train() built serves on raw validation windows is softmax(scores / T) for one T > 0 (T fitted
    here: the calibration's). The bug serves softmax(probabilities / T);
  - the metrics and the calibration read the model's output too: checked on the README run below
    (printed val acc, entropy and the calibration's val nll against the recomputed scores).
  (Until issue 22 this was `model_output_is_class_scores`: log_softmax(model(x)) == log_softmax
  (scores) in eval and train mode, on validation windows and on windows x4, inputs the case never
  feeds. It rejected a correct fix that keeps the probability output.)
- recomputed: the NLL of the trained weights' scores on the (unaugmented) training windows is
  below 1.0 (gold 0.27; a run that did not train fails it. The bug's own head scores pass it too,
  ~0.35-0.46, because it trains them to a large scale: the other checks catch the bug);
- reported against recomputed: that optimized loss is the model's own cross-entropy: the median
  of the last 50 backward values is within 0.15 of the recomputed NLL (gold 0.29 vs 0.27; the
  bug 1.47 vs 0.34).

Then, once, on what the README's own command printed (source readme_run; run by the harness as
the user runs it, plain python, no hooks):

- `readme_run_completes` (verifylib, every case);
- `readme_run_logs_the_training`: steps 0, 25, ..., 200 with loss, val acc, entropy;
- `readme_run_loss_below_probability_floor`: the loss printed at step 200 is < 1.0 (bug 1.42,
  gold 0.22);
- `readme_run_entropy_well_below_ln8`: the validation entropy printed at step 200 is < 1.5
  (bug 2.020 of ln 8 = 2.079; gold 0.38);
- `readme_run_loss_matches_measured_training`: the loss printed at each logged step equals the
  value the measuring process saw passed to backward at that step for seed 0 (< 1e-3);
- `readme_run_val_metrics_match_recomputed_model`: the val acc and entropy printed at step 200
  equal this file's computation from the seed-0 trained weights (within 0.002), and so does the
  validation NLL the calibration line prints before scaling (the calibration reads the model's
  output as scores too; the bug prints 1.4882 where its own scores give ~0.4).
"""

import math
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent  # the verifier's bundle, or answers/<case>/ in the repository
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.loss_on_probabilities import (  # noqa: E402
    check_loss_inputs,
    check_printed_losses,
    check_printed_metrics,
    check_readme_logs,
    har_windows,
    val_metrics,
)
from verifylib import Unreadable, decide_main, logged_rows, numbers  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

BOUND, OUTPUT_TOL, CONSISTENCY_TOL = 1.0, 1e-3, 0.15
STEPS, PEAK_LR, LOG_EVERY = 200, 0.1, 25
N_TRAIN, N_VAL, N_CHANNELS, WINDOW, N_CLASSES = 3000, 800, 6, 48, 8
NOISE, SPREAD, PROTOTYPE_SEED, VAL_SEED_OFFSET = 1.4, 0.15, 1234, 100
CHANNELS, DEPTH, KERNEL = 32, 2, 5
README_SEED = 0
README_STEPS = list(range(0, STEPS + 1, LOG_EVERY))
ENTROPY_BOUND, PRINTED_LOSS_TOL, PRINTED_METRIC_TOL = 1.5, 1e-3, 2e-3
README_SEED_VALUES = {}


def recordings(n, seed):
    """The case's synthetic windows (har/data/synth.py), reproduced so the agent cannot make them easier."""
    return har_windows(n, seed, N_CLASSES, N_CHANNELS, WINDOW, NOISE, SPREAD, PROTOTYPE_SEED)


def splits(seed):
    """Standardized (train x, train y, val x, val y), statistics from the training windows."""
    x_train, y_train = recordings(N_TRAIN, seed)
    x_val, y_val = recordings(N_VAL, seed + VAL_SEED_OFFSET)
    mean = x_train.mean(dim=(0, 2), keepdim=True)
    std = x_train.std(dim=(0, 2), keepdim=True).clamp_min(1e-3)
    return (x_train - mean) / std, y_train, (x_val - mean) / std, y_val


class ChannelNorm(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.norm = nn.LayerNorm(channels)

    def forward(self, x):
        return self.norm(x.transpose(1, 2)).transpose(1, 2)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = ChannelNorm(CHANNELS)
        self.conv = nn.Conv1d(CHANNELS, CHANNELS, KERNEL, padding=KERNEL // 2)

    def forward(self, x):
        return x + self.conv(F.gelu(self.norm(x)))


class Scores(nn.Module):
    """The case's AttnPoolNet without any output normalization: it returns the head's scores."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv1d(N_CHANNELS, CHANNELS, KERNEL, padding=KERNEL // 2)
        self.blocks = nn.Sequential(*[Block() for _ in range(DEPTH)])
        self.norm = ChannelNorm(CHANNELS)
        self.score = nn.Linear(CHANNELS, 1)
        self.head = nn.Linear(CHANNELS, N_CLASSES)

    def forward(self, x):
        h = self.norm(self.blocks(F.gelu(self.stem(x))))
        w = torch.softmax(self.score(h.transpose(1, 2)).squeeze(-1) * CHANNELS ** -0.5, dim=-1)
        return self.head(torch.einsum("bt,bct->bc", w, h))


def load_weights(state):
    """The agent's state_dict in this file's model, matched in registration order by shape (names are free)."""
    model = Scores().double()
    ours = model.state_dict()
    theirs = list(state.items())
    shapes = [(k, tuple(v.shape)) for k, v in theirs]
    if len(theirs) != len(ours) or any(tuple(v.shape) != tuple(o.shape) for (_, v), o in zip(theirs, ours.values())):
        raise Unreadable(f"the trained model's parameters {shapes[:20]} are not the case's AttnPoolNet "
                         f"(conv stem 6-32, 2 residual conv blocks, attention pooling, head 32-8)")
    model.load_state_dict({name: v.double() for name, (_, v) in zip(ours, theirs)})
    return model


def decide(seed, m, checks):
    n_steps, kinds, peak = m.number("optimizer_steps"), m.value("optimizers", list), m.value("peak_learning_rate")
    checks.check("optimizer_is_the_configured_sgd",
                 n_steps == STEPS and kinds == ["SGD"] and isinstance(peak, float) and abs(peak - PEAK_LR) < 1e-9,
                 value={"steps": n_steps, "optimizers": kinds, "peak_lr": peak},
                 bound=f"{STEPS} SGD steps peaking at lr {PEAK_LR}: the README's config, so a raised lr, another "
                       "optimizer or a longer run (the user's hypothesis) cannot stand in for the fix", source="reported")
    check_loss_inputs(m, checks, "0 and 0: the bug hands CrossEntropyLoss probability rows (non-negative, summing "
                      "to 1); an NLL must receive normalized log-probabilities")
    values = [float(v) for v in m.value("backward_values_by_step", list)][:STEPS + 1][-50:]
    final = statistics.median(values) if values else float("inf")
    checks.check("optimized_loss_below_probability_floor", final < BOUND,
                 value=round(final, 4) if math.isfinite(final) else "no backward values",
                 bound=f"< {BOUND}: median of the last 50 losses backward received ({int(m.number('backward_calls'))} "
                       "calls); cross-entropy over probability rows of 8 classes cannot go under ln(1 + 7/e) = 1.27",
                 source="reported", limit=BOUND if math.isfinite(final) else None,
                 sense="<" if math.isfinite(final) else None)

    model = load_weights(m.tensors("model"))
    x_train, y_train, x_val, y_val = splits(seed)
    with torch.no_grad():
        nll = F.cross_entropy(model(x_train.double()), y_train).item()
        val_scores = model(x_val.double())
        if seed == README_SEED:
            logp = F.log_softmax(val_scores, -1)
            README_SEED_VALUES.update(val_metrics(logp, y_val))
            README_SEED_VALUES["val nll"] = F.nll_loss(logp, y_val).item()

    # what reached the loss at the last training step (made with the final weights)
    kind = m.value("last_loss_call")
    diff, shown = math.inf, "no cross-entropy or NLL call followed a training forward"
    if kind in ("cross_entropy", "nll_loss"):
        call = m.tensors("last_loss_call", keys=["input", "x"])
        got, x = call["input"].double(), call["x"].double()
        if got.dim() == 2 and got.shape[1] == N_CLASSES and tuple(x.shape[1:]) == (N_CHANNELS, WINDOW) \
                and len(x) == len(got):
            with torch.no_grad():
                want = F.log_softmax(model(x), -1)
            implied = F.log_softmax(got, -1) if kind == "cross_entropy" else got
            diff = (implied - want).abs().nan_to_num(math.inf).max().item()
            shown = round(diff, 6)
        else:
            shown = f"loss input {tuple(got.shape)} for windows {tuple(x.shape)}"
    checks.check("loss_reads_the_models_log_distribution", diff < OUTPUT_TOL, value=shown,
                 bound=f"< {OUTPUT_TOL}: max |log-distribution the loss read - log_softmax(trained scores)| at the last "
                       f"training step ({kind}; cross-entropy reads log_softmax of its input, NLL its input as it is), "
                       "scores recomputed from the final weights on the batch the model received. The loss must be the "
                       "cross-entropy of the model's predicted distribution, whatever form carries it (logits, "
                       "log-probabilities, the log of documented probabilities); the bug hands it probabilities, "
                       "which it reads as a near-uniform distribution (difference ~30)",
                 source="reported", limit=OUTPUT_TOL if math.isfinite(diff) else None,
                 sense="<" if math.isfinite(diff) else None)

    # what the export serves: softmax of the trained scores at one temperature (calibration's)
    residual, shown = math.inf, "train() built no export.ServingModel"
    if m.number("serving_models_built") > 0:
        served = m.tensors("served", keys=["probabilities"])["probabilities"].double()
        if tuple(served.shape) == (N_VAL, N_CLASSES):
            logp = served.log()
            cp = logp - logp.mean(-1, keepdim=True)
            cs = val_scores - val_scores.mean(-1, keepdim=True)
            inv_t = ((cp * cs).sum() / (cs * cs).sum()).item()
            if math.isfinite(inv_t) and inv_t > 0:
                residual = (cp - inv_t * cs).abs().nan_to_num(math.inf).max().item()
                shown = round(residual, 6)
            else:
                shown = f"served log-probabilities do not grow with the scores (fitted 1/T {inv_t})"
        else:
            shown = f"served shape {tuple(served.shape)}"
    checks.check("export_serves_the_scores_softmax", residual < OUTPUT_TOL, value=shown,
                 bound=f"< {OUTPUT_TOL}: max |centred log of what the exported ServingModel serves on raw validation "
                       "windows - centred trained scores / T|, T fitted (the calibration's temperature, any T > 0). The "
                       "phone app gets softmax(scores / T); under the bug it gets softmax(probabilities / T), a "
                       "different distribution", limit=OUTPUT_TOL if math.isfinite(residual) else None,
                 sense="<" if math.isfinite(residual) else None)
    checks.check("trained_scores_nll_below_1", nll < BOUND, value=round(nll, 4),
                 bound=f"< {BOUND}: the training NLL of the trained weights' scores; a run that did not train stays "
                       "near ln 8 = 2.08 (the bug's scores pass it: the other checks catch the bug)",
                 limit=BOUND, sense="<")
    checks.check("optimized_loss_is_the_models_cross_entropy", abs(final - nll) < CONSISTENCY_TOL,
                 value=round(abs(final - nll), 4) if math.isfinite(final) else "no backward values",
                 bound=f"< {CONSISTENCY_TOL}: |median of the last 50 losses backward received - the recomputed NLL of "
                       f"the trained scores ({round(nll, 4)})|. The loss optimized must be the true cross-entropy of the "
                       "model's predicted distribution (augmentation makes them differ a little); over probabilities "
                       "it is ~1.1 higher",
                 source="reported", limit=CONSISTENCY_TOL if math.isfinite(final) else None,
                 sense="<" if math.isfinite(final) else None)


def readme(run, measured, checks):
    rows = logged_rows(run["stdout"])
    check_readme_logs(rows, checks, README_STEPS, STEPS, LOG_EVERY)
    last = rows.get(STEPS, {})
    loss, entropy = last.get("loss", math.inf), last.get("entropy", math.inf)
    checks.check("readme_run_loss_below_probability_floor", loss < BOUND, value=loss,
                 bound=f"< {BOUND} at step {STEPS}: the README's symptom (loss stalls ~1.4); cross-entropy over "
                       "probabilities stays >= 1.27", source="readme_run", limit=BOUND if math.isfinite(loss) else None,
                 sense="<" if math.isfinite(loss) else None)
    checks.check("readme_run_entropy_well_below_ln8", entropy < ENTROPY_BOUND, value=entropy,
                 bound=f"< {ENTROPY_BOUND} at step {STEPS}: the README's other symptom (validation entropy just under "
                       "ln 8 = 2.079: softmax of probabilities is near-uniform)", source="readme_run",
                 limit=ENTROPY_BOUND if math.isfinite(entropy) else None, sense="<" if math.isfinite(entropy) else None)
    check_printed_losses(rows, measured.get(README_SEED), checks, PRINTED_LOSS_TOL)
    calibration = [numbers(line) for line in run["stdout"].splitlines() if line.startswith("calibration:")]
    printed = dict(last)
    if calibration and len(calibration[-1]) >= 2:
        printed["val nll"] = calibration[-1][1]
    check_printed_metrics(printed, README_SEED_VALUES, 3, checks, PRINTED_METRIC_TOL,
                          f"printed step-{STEPS} val acc and entropy, and the calibration's val nll before "
                          f"scaling, within {PRINTED_METRIC_TOL} of the seed-0 weights' scores: the metrics and "
                          "calibration must read the model's output as the scores it trained")


decide_main(decide, readme=readme)
