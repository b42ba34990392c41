"""case_01, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-c01-087c9056fe069eb3

The bug feeds probabilities to cross-entropy. Whatever else an over-fix changes, that keeps the
optimized loss at or above the floor ln(1 + (C-1)/e) ~ 1.46 and the true likelihood poor at the
README's settings. Checks per seed:

- recomputed: the trained weights, loaded into this file's own copy of the case's Classifier
  and evaluated on its own copy of the training data, reach a true NLL below 1.0 (the bug's
  model stays near ln 10; returning logits reaches ~0.4);
- reported: the loss the training differentiates ends below 1.0 (median of its last 50
  values): under the bug it cannot go under ~1.46, and scaling the loss up to make SGD move
  (x10) keeps it far above;
- reported: no cross-entropy call during training received probability rows;
- reported: the optimizer stepped 500 times as plain SGD at lr 0.05, as the README runs it,
  so a raised learning rate or another optimizer cannot stand in for the fix.
"""

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import decide_main  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

BOUND = 1.0
STEPS, LR = 500, 0.05
N_TRAIN, N_FEATURES, N_CLASSES, HIDDEN = 4000, 32, 10, 64


def make_dataset(n, seed, noise=4.0, spread=0.4):
    """The case's synthetic data, reproduced here so the agent cannot make it easier."""
    g = torch.Generator().manual_seed(seed)
    centres = torch.randn(N_CLASSES, N_FEATURES, generator=torch.Generator().manual_seed(1234)) * spread
    y = torch.randint(0, N_CLASSES, (n,), generator=g)
    x = centres[y] + noise * torch.randn(n, N_FEATURES, generator=g) / N_FEATURES ** 0.5
    return x, y


def scores_model():
    """The case's Classifier without any output normalization: its head gives scores."""
    model = nn.Module()
    model.backbone = nn.Sequential(nn.Linear(N_FEATURES, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU())
    model.head = nn.Linear(HIDDEN, N_CLASSES)
    return model


def decide(seed, m, checks):
    n_steps, kinds, lrs = m.number("optimizer_steps"), m.value("optimizers", list), m.value("learning_rates", list)
    checks.check("optimizer_is_the_configured_sgd", n_steps == STEPS and kinds == ["SGD"] and lrs == [LR],
                 value={"steps": n_steps, "optimizers": kinds, "lrs": lrs}, bound=f"{STEPS} SGD steps at lr {LR}",
                 source="reported")
    on_probs, n_ce = m.number("cross_entropy_calls_on_probabilities"), m.number("cross_entropy_calls")
    checks.check("cross_entropy_never_receives_probabilities", on_probs == 0,
                 value={"calls_on_probabilities": on_probs, "calls": n_ce}, bound="0", source="reported")
    values = [float(v) for v in m.value("backward_values", list)][-50:]
    final = statistics.median(values) if values else float("inf")
    checks.check("optimized_loss_below_probability_floor", final < BOUND,
                 value={"median_last_50": round(final, 4), "backward_calls": m.number("backward_calls")},
                 bound=f"< {BOUND} (cross-entropy over probabilities stays >= 1.46)", source="reported")

    model = scores_model()
    state = m.tensors("model", keys=model.state_dict().keys())
    model.load_state_dict(state)
    x, y = make_dataset(N_TRAIN, seed)
    with torch.no_grad():
        nll = F.cross_entropy(model.head(model.backbone(x.to(state["head.weight"].dtype))), y).item()
    checks.check("train_nll_below_bug_floor", nll < BOUND, value=round(nll, 4), bound=f"< {BOUND}")


decide_main(decide)
