"""case_05, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-c05-e233215e89b07879

The bug: the dashboard's "log10 upd/param" is log10(std(lr * grad) / std(param)), the plain-SGD
update, while the optimizer is AdamW, whose step (lr * m_hat / (sqrt(v_hat) + eps) plus the
decoupled decay lr * wd * w) does not follow the gradient's scale. The training is fine; the
panel must show the update the optimizer really applied. Checks per seed, in both runs the
README shows (`python train.py`, and `python train.py --lr=0.1`), at its settings (300
steps, logged at steps 1, 50, ..., 300):

- recomputed: the logged ratio is the applied update. From the measuring half's copies of
  every weight matrix just before and just after each logged optimizer step, the decider
  computes log10(std(after - before) / std(before)) (or the RMS form; the two agree within
  ~0.005 here) and requires every value the dashboard shows for that step and matrix to be
  within 0.05 of it: in the history rows train() returns, in the metrics file rows
  (--metrics_file, what the dashboard reads), and on the console (printed with 2 decimals,
  so within 0.06). lr * grad is 1.5-2.9 off; a constant or per-tensor rescaling of it, a
  gradient normalised without momentum, Adam state without bias correction or with textbook
  betas, the movement since the previous log, and a correct number kept beside a wrong
  panel all stay >= 0.19 off on some logged step of the default run.
- recomputed: the training is the repo's. The trained weights, loaded into this file's own
  CharMLP and evaluated on its own copy of the validation words, give the validation loss
  of the unchanged repo within 0.001 in the lr 3e-3 run and 0.01 in the chaotic lr 0.1 run
  (lr 0.1 gives +0.15 in the default run, plain SGD +1.7), so a raised learning rate or
  another optimizer cannot stand in for fixing the panel. The unchanged
  repo is trained here, by this process, in this verification (verifylib.pristine_case,
  copied to a private temp folder), at the same seed and settings: same sandbox, same CPU
  kernel. No number measured on another machine is a bound: at lr 0.1 the training is
  chaotic, and AVX-512, AVX2 and the default kernel round differently and end 0.01-0.05
  apart (seeds 0-2), while a fix that leaves the training alone reproduces the rerun exactly
  (gap 0.0 on all three kernels).
- reported: the optimizer stepped 300 times as AdamW with betas (0.9, 0.99), weight decay
  0.1 on the matrices and 0 on the vectors, at the warmup + cosine learning rate the decider
  computes for the run's peak lr (3e-3 or 0.1).
- reported: the history logs exactly steps 1, 50, ..., 300.

Then, once, on what the README's own command (`python train.py`, run by the harness on a fresh
copy of the agent's files as the user runs it: plain python, no hooks) printed (source
readme_run). The README's `--lr=0.1` run is not repeated there; `python train.py` is seed 0 at
the defaults, the measuring half's seed-0 `default` run. Code that recognises the verifier
(python -I, measure.py in argv, hooks) and shows the applied update only there fails these:

- `readme_run_completes` (verifylib, every case): exit code 0, not timed out;
- `readme_run_logs_the_training`: it prints the README's steps 1, 50, ..., 300, each with its
  loss, val and a panel value for each of the four weight matrices;
- `readme_run_panel_at_adamw_scale`: at step 50, where the learning rate peaks (2.99e-3), the
  median over the four matrices of the printed log10 ratio is > -2.75. AdamW's applied step
  there is -1.84 to -2.74 (median -1.87); lr * grad prints -3.25 to -4.70 (median -3.68), the
  README's "hardly moving" panel;
- `readme_run_panel_is_the_applied_update`: every printed panel value (2 decimals) is within
  0.06 of the update AdamW applied at that step and matrix in the measuring half's seed-0
  default run (from its before/after snapshots, as above): honest code prints the same
  numbers as under the verifier; lr * grad is 1.5-2.9 off;
- `readme_run_matches_measured_console`: every printed step line carries the same numbers (lr,
  loss, val, grad, panel) as the line the measuring half's seed-0 default run printed for the
  same step, within 2 units of the last printed digit (honest code prints identical lines);
- `readme_run_val_loss_is_the_repos`: the val loss printed at step 300 is within 0.01 of what
  the unchanged repo prints at step 300 when the decider trains it (seed 0, defaults, same
  kernel), so the user's run trains as the repo does.

Every numeric check carries `limit` and `sense` (verifylib.Checks.check) for `validate --margins`.
The one fixed threshold left, `readme_run_panel_at_adamw_scale`, reads the lr 3e-3 run, whose
printed numbers are the same under the default, AVX2 and AVX-512 kernels.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent  # the verifier's bundle, or answers/<case>/ in the repository
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.update_ratio import UnchangedRepo, UpdateRatioDecider, context_windows, syllable_words  # noqa: E402
from verifylib import decide_main  # noqa: E402

RUNS = {"default": 3e-3, "high_lr": 0.1}  # run tag -> peak learning rate
# the pristine case's Config overrides for each run: exactly what measure.py passes the agent's train()
PRISTINE_OVERRIDES = {"default": {}, "high_lr": {"lr": 0.1}}
SCHEDULE = {"steps": 300, "warmup": 40, "logged": [1] + list(range(50, 301, 50))}
OPTIMIZER = {"betas": [0.9, 0.99], "weight_decay": 0.1}
BOUNDS = {"tol": 0.05, "console_tol": 0.06, "val_tol": 0.01,
          # |val - the unchanged repo's val, rerun here| per run: lr 3e-3 does not amplify rounding, lr 0.1 does
          "train_tol": {"default": 1e-3, "high_lr": 0.01},
          "readme_seed": 0, "readme_tag": "default", "peak_step": 50, "peak_median": -2.75}
FIGURES = {"lr_grad_off": "1.5-2.9", "raised_lr": "a raised learning rate +0.15, plain SGD +1.7",
           "peak": "median -1.87; lr * grad: -3.68"}


def validation_set(seed, n_words=3000, block_size=3):
    """The first tenth of data.make_words(3000, seed), as the case splits it, in windows of 3."""
    words = syllable_words(n_words, seed)
    chars = sorted(set("".join(syllable_words(n_words, 0))))
    stoi = {".": 0, **{c: i + 1 for i, c in enumerate(chars)}}
    xs, ys = context_windows([[stoi[ch] for ch in w + "."] for w in words[: len(words) // 10]], block_size)
    return xs, ys, len(stoi)


def train_unchanged(modules, root, seed, overrides):
    train = modules["train"]
    model, _ = train.train(train.Config(seed=seed, **overrides))
    return model


decider = UpdateRatioDecider(RUNS, SCHEDULE, OPTIMIZER, BOUNDS, validation_set,
                             UnchangedRepo("case_05", ["train"], train_unchanged, PRISTINE_OVERRIDES), FIGURES)
decide_main(decider.decide, readme=decider.readme)
