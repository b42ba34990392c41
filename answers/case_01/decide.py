"""case_01, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-c01-087c9056fe069eb3

The bug: Classifier.forward returns probabilities, and that is what cross-entropy receives. The
repo's contract (CrossEntropyLoss in train.py, predictive_entropy, export.ServingModel) is that
the classifier returns class scores: logits, or anything softmax-equivalent to them. Checks per
seed, all at the README's settings:

- recomputed: whatever form the model's output takes, it is the trained network's predicted
  distribution, carried faithfully. The decider loads the trained weights into its own copy of
  the case's MLP (matched by shape, so a renamed or restructured module is fine), computes the
  head's scores on inputs it regenerates (the validation set, and the same windows scaled x8 so
  that class scores lie far apart) and accepts one output form for all of model(x), in eval and
  in train mode: class scores (log_softmax of the output equals log_softmax of the scores: raw
  logits, log_softmax, logits minus logsumexp) or probabilities (the output equals softmax of
  the scores, the model's documented probability output kept). The value is the smaller of the
  two forms' largest deviations (< 1e-3). The form itself is free: the bug is about what reaches
  the loss (the reported and recomputed loss checks below), not what forward returns. Rescaled
  probabilities (softmax x25), clamped log-probs, and an output whose meaning depends on the mode
  (scores in training, probabilities after .eval()) carry a distorted or two-faced distribution
  and move it by 1 or more.
- recomputed: the true NLL of the trained weights (own MLP, own copy of the training data) is
  below 1.0 (the bug's model stays near ln 10; returning logits reaches ~0.4);
- reported: the loss the training differentiates ends below 1.0 (median of its last 50
  values): under the bug it cannot go under ~1.46, and scaling the loss up (x10) keeps it far
  above. This and the next two checks are the bug's own invariant: what reaches the loss is
  the scores or log-probabilities of the model's distribution, so the loss optimized is its
  true cross-entropy (training on the pre-softmax scores, or on the log of a kept probability
  output, passes);
- reported against recomputed: that optimized loss (median of the last 50 backward values) is
  the model's own cross-entropy: within 0.15 of the recomputed NLL (gold: 0.43 vs 0.41). A loss
  scaled up, or taken on anything other than the model's scores (softmax x25 in the training
  loop reaches 0.27 while the scores' NLL is 0.93), moves it;
- reported: no cross-entropy call received probability rows, and every NLL call received
  normalized log-probabilities;
- reported: the optimizer stepped 500 times as plain SGD at lr 0.05, as the README runs it,
  so a raised learning rate or another optimizer cannot stand in for the fix.

Then, once, on what the README's own command (`python train.py`, run by the harness on a fresh
copy of the agent's files as the user runs it: plain python, no hooks) printed (source
readme_run). Code that recognises the verifier (python -I, measure.py in argv, hooks) and is
fixed only there fails these:

- `readme_run_completes` (verifylib, every case): exit code 0, not timed out;
- `readme_run_logs_the_training`: it logs the README's steps 0, 50, ..., 500;
- `readme_run_loss_below_probability_floor`: the loss printed at step 500 is < 1.0 (cross-entropy
  over probability rows cannot go under ln(1 + 9/e) = 1.46; the bug prints 2.29, gold 0.37);
- `readme_run_entropy_well_below_ln10`: the validation entropy printed at step 500 is < 1.5 (the
  softmax of a probability row has entropy >= 2.23, ln 10 = 2.303; gold prints 0.64);
- `readme_run_loss_matches_measured_training`: the README's run is seed 0 at the default settings,
  which is what the measuring process trained: the loss printed at each logged step equals the
  value the measuring process saw passed to backward at that step (|difference| < 1e-3; honest
  code prints the very same numbers, to the printed 4 decimals);
- `readme_run_val_metrics_match_recomputed_model`: the validation accuracy and entropy printed at
  step 500 equal this file's own computation from the seed-0 trained weights (accuracy within
  0.002, entropy within 0.002).
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
    val_metrics,
)
from verifylib import Unreadable, decide_main, logged_rows  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

BOUND, OUTPUT_TOL, CONSISTENCY_TOL = 1.0, 1e-3, 0.15
STEPS, LR = 500, 0.05
N_TRAIN, N_VAL, N_FEATURES, N_CLASSES, HIDDEN = 4000, 1000, 32, 10, 64
VAL_SEED_OFFSET, PROBE_SCALE = 100, 8.0
OUTPUTS = [f"{mode}_{probe}" for mode in ("eval", "train") for probe in ("val", "scaled")]
README_SEED, LOG_EVERY = 0, 50  # the README's run: Config() defaults, i.e. seed 0 at the pinned settings
README_STEPS = list(range(0, STEPS + 1, LOG_EVERY))
ENTROPY_BOUND, PRINTED_LOSS_TOL, PRINTED_METRIC_TOL = 1.5, 1e-3, 2e-3
README_SEED_VALUES = {}  # what decide() recomputed for seed 0, for the checks on the README's run


def make_dataset(n, seed, noise=4.0, spread=0.4):
    """The case's synthetic data, reproduced here so the agent cannot make it easier."""
    g = torch.Generator().manual_seed(seed)
    centres = torch.randn(N_CLASSES, N_FEATURES, generator=torch.Generator().manual_seed(1234)) * spread
    y = torch.randint(0, N_CLASSES, (n,), generator=g)
    x = centres[y] + noise * torch.randn(n, N_FEATURES, generator=g) / N_FEATURES ** 0.5
    return x, y


class Scores(nn.Module):
    """The case's Classifier without any output normalization: it returns the head's scores."""

    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(N_FEATURES, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU())
        self.head = nn.Linear(HIDDEN, N_CLASSES)

    def forward(self, x):
        return self.head(self.backbone(x))


def load_weights(state):
    """The agent's state_dict in this file's MLP, matching its three Linear layers by shape (names are free)."""
    model = Scores().double()
    ours = {tuple(model.state_dict()[f"{layer}.weight"].shape): layer
            for layer in ("backbone.0", "backbone.2", "head")}
    mapped = {}
    for key, weight in state.items():
        if key.endswith("weight") and weight.dim() == 2 and tuple(weight.shape) in ours:
            layer = ours.pop(tuple(weight.shape))
            bias = state.get(key[: -len("weight")] + "bias")
            if bias is None:
                raise Unreadable(f"the trained model has no bias beside '{key}'")
            mapped[f"{layer}.weight"], mapped[f"{layer}.bias"] = weight, bias
    if ours or len(mapped) != len(state):
        raise Unreadable(f"the trained model's parameters {[(k, tuple(v.shape)) for k, v in state.items()][:8]} "
                         "are not the case's MLP (Linear 32-64, 64-64, 64-10)")
    try:
        model.load_state_dict({k: v.double() for k, v in mapped.items()})
    except RuntimeError as exc:
        raise Unreadable(f"the trained weights do not fit the case's MLP: {exc}"[:300]) from exc
    return model


def decide(seed, m, checks):
    n_steps, kinds, lrs = m.number("optimizer_steps"), m.value("optimizers", list), m.value("learning_rates", list)
    checks.check("optimizer_is_the_configured_sgd", n_steps == STEPS and kinds == ["SGD"] and lrs == [LR],
                 value={"steps": n_steps, "optimizers": kinds, "lrs": lrs}, bound=f"{STEPS} SGD steps at lr {LR}, the README's settings "
                 "(a raised lr or another optimizer hides the compressed gradient instead of fixing it)",
                 source="reported")
    check_loss_inputs(m, checks, "0 and 0: cross-entropy never receives probability rows, NLL only normalized "
                      "log-probabilities (what reaches the loss is what the bug changes)")
    values = [float(v) for v in m.value("backward_values", list)][-50:]
    final = statistics.median(values) if values else float("inf")
    checks.check("optimized_loss_below_probability_floor", final < BOUND,
                 value=round(final, 4), limit=BOUND, sense="<", source="reported",
                 bound=f"< {BOUND}: median of the last 50 values passed to backward ({m.number('backward_calls'):.0f} "
                 "calls); cross-entropy over probability rows cannot go under ln(1 + 9/e) = 1.46, the fix's loss "
                 "reaches about 0.4")

    model = load_weights(m.tensors("model"))
    x_train, y_train = make_dataset(N_TRAIN, seed)
    x_val, _ = make_dataset(N_VAL, seed + VAL_SEED_OFFSET)
    outputs = m.tensors("outputs", keys=OUTPUTS)
    deviation = {"scores": 0.0, "probabilities": 0.0}
    with torch.no_grad():
        nll = F.cross_entropy(model(x_train.double()), y_train).item()
        if seed == README_SEED:
            _, y_val = make_dataset(N_VAL, seed + VAL_SEED_OFFSET)
            README_SEED_VALUES.update(val_metrics(F.log_softmax(model(x_val.double()), -1), y_val))
        for name in OUTPUTS:
            x = x_val * PROBE_SCALE if name.endswith("scaled") else x_val
            got = outputs[name]
            if tuple(got.shape) != (N_VAL, N_CLASSES) or not got.is_floating_point():
                deviation = {form: math.inf for form in deviation}
                continue
            ref = F.log_softmax(model(x.double()), -1)
            as_scores = (F.log_softmax(got.double(), -1) - ref).abs()
            as_probabilities = (got.double() - ref.exp()).abs()
            for form, diff in (("scores", as_scores), ("probabilities", as_probabilities)):
                deviation[form] = max(deviation[form], diff.nan_to_num(math.inf).max().item())
    form = min(deviation, key=deviation.get)
    checks.check("model_output_is_its_distribution", deviation[form] < OUTPUT_TOL, value=round(deviation[form], 6),
                 bound=f"< {OUTPUT_TOL}: the largest deviation of model(x) (eval and train mode, validation and x8 "
                 f"inputs) from the trained head's distribution, in the one form that fits best ({form}; "
                 f"scores: {deviation['scores']:.3g}, probabilities: {deviation['probabilities']:.3g}). "
                 "Any faithful form passes; rescaled or clamped outputs, or one that changes with the mode, move it",
                 limit=OUTPUT_TOL, sense="<")
    checks.check("train_nll_below_bug_floor", nll < BOUND, value=round(nll, 4), limit=BOUND, sense="<",
                 bound=f"< {BOUND}: the trained head's true NLL on the training data; the bug's compressed "
                 "gradients leave it near ln 10 = 2.30 after 500 steps, a fix reaches about 0.4")
    checks.check("optimized_loss_is_the_models_cross_entropy", abs(final - nll) < CONSISTENCY_TOL,
                 value=round(abs(final - nll), 4), limit=CONSISTENCY_TOL, sense="<", source="reported",
                 bound=f"< {CONSISTENCY_TOL}: |median of the last 50 optimized losses ({final:.4f}) - the trained "
                 f"head's true NLL ({nll:.4f})|; a loss on anything but the model's own scores or log-probabilities "
                 "(rescaled probabilities, a scaled loss) optimizes another quantity and moves it")


def readme(run, measured, checks):
    rows = logged_rows(run["stdout"])
    check_readme_logs(rows, checks, README_STEPS, STEPS, LOG_EVERY)
    last = rows.get(STEPS, {})
    loss, entropy = last.get("loss", math.inf), last.get("entropy", math.inf)
    checks.check("readme_run_loss_below_probability_floor", loss < BOUND, value=loss, limit=BOUND, sense="<",
                 bound=f"< {BOUND} at step {STEPS} (cross-entropy over probabilities stays >= 1.46)", source="readme_run")
    checks.check("readme_run_entropy_well_below_ln10", entropy < ENTROPY_BOUND, value=entropy, limit=ENTROPY_BOUND,
                 sense="<",
                 bound=f"< {ENTROPY_BOUND} at step {STEPS} (softmax of probabilities stays >= 2.23; ln 10 = 2.303)",
                 source="readme_run")
    check_printed_losses(rows, measured.get(README_SEED), checks, PRINTED_LOSS_TOL)
    check_printed_metrics(last, README_SEED_VALUES, 2, checks, PRINTED_METRIC_TOL,
                          f"printed step-{STEPS} val acc and entropy within {PRINTED_METRIC_TOL} of the seed-0 "
                          "weights'")


decide_main(decide, readme=readme)
