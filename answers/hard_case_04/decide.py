"""hard_case_04, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-h04-41c2906345c38ee6

The bug: RecurrentNet.states hands the GRU the flat (B * T, H) frame embeddings viewed as
(T, B, H); the rows are in (b, t) order, so each sequence the GRU reads is stitched from frames of
several recordings. The invariant it breaks: a recording's output depends only on that
recording, never on the other rows of its batch or on how much padding they add. The
configuration is the README's (configs/recurrent.toml, pinned by the measuring half): GRU, AdamW
lr 3e-3 with 10 warmup steps and cosine decay, batch 32 bucketed by length, jitter 0.05, scale
0.1, clip 0.25, 150 steps, eval batch 100. Checks per seed:

- recomputed `eval_logits_independent_of_batch`: the trained model's validation logits (eval
  mode) are the same whether each recording is evaluated alone (no padding), in the README's
  batches of 100, or in shuffled batches of 37: max abs difference < 1e-4 (a correct model ~3e-6).
- recomputed `logits_match_the_case_gru`: this file's own copy of the case's GRU model (frame
  embedding, unidirectional GRU over time, masked mean, BatchNorm head), loaded with the trained
  weights, gives the logits the agent's model gave for every validation recording alone (max abs
  diff < 1e-4). A model that is no longer the case's GRU (another architecture, bidirectional,
  final state after padding, another pooling) moves it.
- recomputed `train_mode_forward_is_row_equivariant`: in training mode (BatchNorm on batch
  statistics, dropout off) permuting the rows of a batch of 32 training recordings permutes the
  outputs the same way (max abs diff < 1e-4).
- recomputed `val_nll_of_single_recordings`: the cross-entropy of this file's recomputed
  single-recording logits against its own validation labels is < 0.1 (chance ln 4 = 1.386, where
  training on stitched sequences stays; a correct fix ~0.002).
- reported `training_loss_well_below_chance`: the median of the last 25 values passed to backward
  is < 0.1 (the bug keeps it at ~1.38; a correct fix ~0.01).
- reported `optimizer_is_the_configured_adamw`: 150 AdamW steps whose learning rate peaks at 3e-3
  (warmup and cosine as configured).

Then, once, on what the README's own command (`python train.py --config configs/recurrent.toml`,
run by the harness on a fresh copy of the agent's files: plain python, no hooks) printed
(source readme_run). Code that recognises the verifier, or a config edit that changes the
experiment the README runs, fails these:

- `readme_run_completes` (verifylib): exit code 0, not timed out;
- `readme_run_logs_the_training`: it logs steps 0, 25, ..., 150 with train loss, val loss, val acc;
- `readme_run_val_loss_below_chance`: the val loss printed at step 150 is < 0.1 (bug ~1.39);
- `readme_run_val_acc_near_one`: the val acc printed at step 150 is >= 0.9 (bug ~0.27);
- `readme_run_matches_measured_training`: every printed row equals the seed-0 history the
  measuring process recorded (losses within 1e-3, accuracy within one recording), and each printed
  training loss equals the value passed to backward at that step;
- `readme_run_val_matches_recomputed_logits`: the val loss and accuracy printed at step 150 equal
  this file's cross-entropy and accuracy of the seed-0 logits in batches of 100.
"""

import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from families.sequence_layout import (  # noqa: E402
    LOGIT_TOL,
    LOSS_BOUND,
    N_CHANNELS,
    N_CLASSES,
    N_VAL,
    NLL_BOUND,
    PERM_BATCH,
    STEPS,
    VAL_ACC_FLOOR,
    VAL_SEED_OFFSET,
    batch_deviations,
    check_readme_against_measured,
    final_training_loss,
    make_dataset,
    readme_rows,
    remember_readme_seed,
    train_mode_deviation,
    validation_logits,
)
from verifylib import Unreadable, decide_main, max_diff  # noqa: E402

HIDDEN, PEAK_LR, WARMUP = 32, 3e-3, 10


class CaseGRU(nn.Module):
    """The case's RecurrentNet as it is meant to be (layers 1, mean pooling), in eval mode only."""

    def __init__(self):
        super().__init__()
        self.mean = nn.Parameter(torch.zeros(N_CHANNELS), requires_grad=False)
        self.std = nn.Parameter(torch.ones(N_CHANNELS), requires_grad=False)
        self.proj = nn.Linear(N_CHANNELS, HIDDEN)
        self.ln = nn.LayerNorm(HIDDEN)
        self.rnn = nn.GRU(HIDDEN, HIDDEN, batch_first=True)
        self.bn = nn.BatchNorm1d(HIDDEN)
        self.out = nn.Linear(HIDDEN, N_CLASSES)

    def forward(self, x):
        """One recording (L, C), no padding."""
        h = torch.relu(self.ln(self.proj((x - self.mean) / self.std)))
        out, _ = self.rnn(h[None])
        return self.out(self.bn(out[0].mean(dim=0, keepdim=True)))[0]


OWN_ORDER = ["mean", "std", "proj.weight", "proj.bias", "ln.weight", "ln.bias", "rnn.weight_ih_l0",
             "rnn.weight_hh_l0", "rnn.bias_ih_l0", "rnn.bias_hh_l0", "bn.weight", "bn.bias", "bn.running_mean",
             "bn.running_var", "bn.num_batches_tracked", "out.weight", "out.bias"]
CASE_NAMES = ["inputs.mean", "inputs.std", "embed.proj.weight", "embed.proj.bias", "embed.norm.weight",
              "embed.norm.bias", "rnn.weight_ih_l0", "rnn.weight_hh_l0", "rnn.bias_ih_l0", "rnn.bias_hh_l0",
              "head.norm.weight", "head.norm.bias", "head.norm.running_mean", "head.norm.running_var",
              "head.norm.num_batches_tracked", "head.out.weight", "head.out.bias"]


def load_case_gru(state):
    """Own model with the trained weights: by the case's names, else by order when every shape matches."""
    if set(state) == set(CASE_NAMES):
        values = [state[k] for k in CASE_NAMES]
    else:
        values = list(state.values())
    model = CaseGRU()
    own = model.state_dict()
    if len(values) != len(OWN_ORDER) or any(tuple(v.shape) != tuple(own[k].shape) for k, v in zip(OWN_ORDER, values)):
        raise Unreadable(f"the trained weights {[(k, tuple(v.shape)) for k, v in state.items()][:20]} are not the "
                         "case's GRU model (frame embedding 6-32 + LayerNorm, GRU 32-32, BatchNorm 32, linear 32-4)")
    model.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in zip(OWN_ORDER, values)})
    return model.eval()


def decide(seed, m, checks):
    n_steps, kinds = m.number("optimizer_steps"), m.value("optimizers", list)
    lrs = [float(v) for v in m.value("lr_by_step", list) if isinstance(v, (int, float))]
    peak = max(lrs) if lrs else float("nan")
    checks.check("optimizer_is_the_configured_adamw",
                 n_steps == STEPS and kinds == ["AdamW"] and abs(peak - PEAK_LR) < 1e-12 and len(lrs) == STEPS
                 and abs(lrs[WARMUP] - PEAK_LR) < 1e-12,
                 value={"steps": n_steps, "optimizers": kinds, "peak_lr": peak},
                 bound=f"{STEPS} AdamW steps, lr peaking at {PEAK_LR} after {WARMUP} warmup steps: the README's "
                       "configuration, so another schedule or a longer run cannot stand in for the fix", source="reported")
    final = final_training_loss(m)
    checks.check("training_loss_well_below_chance", final < LOSS_BOUND,
                 value=round(final, 4) if math.isfinite(final) else "no backward values",
                 bound=f"< {LOSS_BOUND}: median of the last 25 losses backward received "
                       f"({int(m.number('backward_calls'))} calls); a GRU reading sequences stitched from several "
                       "recordings stays near chance, ln 4 = 1.386 (a correct fix ~0.01)", source="reported",
                 limit=LOSS_BOUND if math.isfinite(final) else None, sense="<" if math.isfinite(final) else None)

    logits = validation_logits(m)
    devs, flips = batch_deviations(logits)
    worst = max(devs.values())
    checks.check("eval_logits_independent_of_batch", all(d < LOGIT_TOL for d in devs.values()),
                 value=worst if math.isfinite(worst) else str({"max_abs_diff_vs_alone": devs, "prediction_flips": flips}),
                 bound=f"< {LOGIT_TOL}: max |eval logits in the README's batches of 100 or shuffled batches of 37 - "
                       f"logits of each recording alone| (prediction flips {flips}); the bug's view stitches a "
                       "recording's sequence from other rows of its batch",
                 limit=LOGIT_TOL if math.isfinite(worst) else None, sense="<" if math.isfinite(worst) else None)

    xs, y = make_dataset(N_VAL, seed=seed + VAL_SEED_OFFSET)
    model = load_case_gru(m.tensors("state"))
    with torch.no_grad():
        own = torch.stack([model(x) for x in xs])
    dev = max_diff(own, logits["alone"])
    checks.check("logits_match_the_case_gru", dev < LOGIT_TOL, value=round(dev, 7),
                 bound=f"< {LOGIT_TOL}: max |own copy of the case's GRU model (trained weights) - agent's logits|, each "
                       "recording alone: the fix must repair the README's model, not swap the architecture",
                 limit=LOGIT_TOL if math.isfinite(dev) else None, sense="<" if math.isfinite(dev) else None)

    dev = train_mode_deviation(m)
    checks.check("train_mode_forward_is_row_equivariant", dev < LOGIT_TOL, value=round(dev, 7),
                 bound=f"< {LOGIT_TOL}: max |f(x[perm]) - f(x)[perm]| in training mode, a batch of {PERM_BATCH}; "
                       "mixing rows across the batch makes each output depend on the others' order",
                 limit=LOGIT_TOL if math.isfinite(dev) else None, sense="<" if math.isfinite(dev) else None)

    remember_readme_seed(seed, logits, y)
    nll = F.cross_entropy(own.double(), y).item()
    acc = (own.argmax(-1) == y).double().mean().item()
    checks.check("val_nll_of_single_recordings", nll < NLL_BOUND, value=round(nll, 4) if math.isfinite(nll) else "nan",
                 bound=f"< {NLL_BOUND}: cross-entropy of the recomputed single-recording logits on the validation "
                       f"labels (acc {round(acc, 3)}); training on stitched sequences stays at chance, 1.386",
                 limit=NLL_BOUND if math.isfinite(nll) else None, sense="<" if math.isfinite(nll) else None)


def readme(run, measured, checks):
    rows, last = readme_rows(run, checks)
    val_loss, val_acc = last.get("val loss", math.nan), last.get("val acc", math.nan)
    checks.check("readme_run_val_loss_below_chance", val_loss < NLL_BOUND, value=val_loss,
                 bound=f"< {NLL_BOUND} at step {STEPS}: the README's symptom is a val loss stuck at chance "
                       "(~1.39 = ln 4)", source="readme_run", limit=NLL_BOUND if math.isfinite(val_loss) else None, sense="<" if math.isfinite(val_loss) else None)
    checks.check("readme_run_val_acc_near_one", val_acc >= VAL_ACC_FLOOR, value=val_acc,
                 bound=f">= {VAL_ACC_FLOOR} at step {STEPS}: the README's symptom is chance accuracy (~0.27 of 4 "
                       "classes)", source="readme_run", limit=VAL_ACC_FLOOR if math.isfinite(val_acc) else None, sense=">" if math.isfinite(val_acc) else None)
    check_readme_against_measured(rows, measured, checks)


decide_main(decide, readme=readme)
