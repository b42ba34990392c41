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

import contextlib
import importlib
import io
import math
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import Unreadable, decide_main, pristine_case, pristine_memo, printed_numbers, step_lines  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

RUNS = {"default": 3e-3, "high_lr": 0.1}  # run tag -> peak learning rate
LOGGED = [1] + list(range(50, 301, 50))
STEPS, WARMUP, WD, BETAS = 300, 40, 0.1, [0.9, 0.99]
TOL, CONSOLE_TOL, VAL_TOL = 0.05, 0.06, 0.01
# |val - the unchanged repo's val, rerun here| per run: lr 3e-3 does not amplify rounding, lr 0.1 does
TRAIN_TOL = {"default": 1e-3, "high_lr": 0.01}
README_SEED, README_TAG, PEAK_STEP, PEAK_MEDIAN_BOUND = 0, "default", 50, -2.75
README_SEED_VALUES = {}  # what decide() read and recomputed for seed 0's default run, for the README run's checks
# the pristine case's Config overrides for each run: exactly what measure.py passes the agent's train()
PRISTINE_OVERRIDES = {"default": {}, "high_lr": {"lr": 0.1}}
PRISTINE = {}  # (tag, seed) -> {"val": validation loss, "stdout": console} of the unchanged repo, trained here

SYLLABLES = ["ka", "ri", "to", "mi", "sa", "lo", "ne", "vu", "da", "el", "an", "or",
             "is", "ju", "be", "qua", "th", "ny", "ce", "pho", "gri", "st", "ul", "ez"]


def make_words(n, seed=0):
    """The case's corpus, reproduced here so the decider needs none of the agent's files."""
    rng = random.Random(seed)
    table = random.Random(1234)
    follow = [[table.random() ** 6 for _ in SYLLABLES] for _ in SYLLABLES]
    words = []
    for _ in range(n):
        k = rng.randrange(len(SYLLABLES))
        parts = [SYLLABLES[k]]
        for _ in range(rng.randint(1, 3)):
            k = rng.choices(range(len(SYLLABLES)), weights=follow[k])[0]
            parts.append(SYLLABLES[k])
        words.append("".join(parts))
    return words


def validation_set(seed, n_words=3000, block_size=3):
    words = make_words(n_words, seed=seed)
    chars = sorted(set("".join(make_words(n_words, seed=0))))
    stoi = {".": 0, **{c: i + 1 for i, c in enumerate(chars)}}
    xs, ys = [], []
    for w in words[: len(words) // 10]:
        context = [0] * block_size
        for ch in w + ".":
            xs.append(context)
            ys.append(stoi[ch])
            context = context[1:] + [stoi[ch]]
    return torch.tensor(xs), torch.tensor(ys), len(stoi)


class CharMLP(nn.Module):
    def __init__(self, vocab_size, block_size=3, n_embd=16, hidden=128):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, n_embd)
        self.fc1 = nn.Linear(block_size * n_embd, hidden)
        self.ln = nn.LayerNorm(hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, vocab_size)

    def forward(self, idx):
        x = self.emb(idx).flatten(1)
        x = torch.tanh(self.ln(self.fc1(x)))
        return self.out(torch.tanh(self.fc2(x)))


def lr_at(step, peak_lr, warmup=WARMUP, total=STEPS, min_ratio=0.1):
    if step < warmup:
        return peak_lr * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return peak_lr * (min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * progress)))


def load_weights(state, vocab):
    """The agent's state_dict in this file's CharMLP, in registration order (names are free), shapes checked."""
    model = CharMLP(vocab)
    ours = list(model.state_dict().items())
    theirs = list(state.items())
    if len(theirs) != len(ours) or any(tuple(v.shape) != tuple(o.shape) for (_, v), (_, o) in zip(theirs, ours)):
        raise Unreadable(f"the trained model's tensors {[(k, tuple(v.shape)) for k, v in theirs][:10]} are not the "
                         "case's CharMLP")
    model.load_state_dict({k: v.float() for (k, _), (_, v) in zip(ours, theirs)})
    return model.eval()


def pristine_train_module():
    """The unchanged case's train module, imported from a private writable copy of verifylib.pristine_case()
    (the bundle is read-only). Trusted code: it is the case as shipped, never the agent's files."""
    if "train" not in sys.modules:
        copy = Path(tempfile.mkdtemp(prefix="pristine_case_05_")) / "case"
        shutil.copytree(pristine_case(), copy)
        for path in [copy, *copy.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        sys.path.insert(0, str(copy))
        importlib.import_module("train")
    return sys.modules["train"]


def pristine_run(tag, seed, x_val, y_val, vocab):
    """Validation loss and console of the unchanged repo trained at this seed and run's settings, in this
    process: same sandbox, same CPU kernel (ATEN_CPU_CAPABILITY), one thread, as the measuring half.
    Training does not read the panel, so a fix of the panel alone reproduces this bit for bit. Inside
    ``validate`` the deciders of one call on the same kernel share it (verifylib.pristine_memo)."""
    def train_unchanged():
        train = pristine_train_module()
        out, cwd = io.StringIO(), os.getcwd()
        try:
            os.chdir(Path(train.__file__).parent)
            with contextlib.redirect_stdout(out):
                model, _ = train.train(train.Config(seed=seed, **PRISTINE_OVERRIDES[tag]))
        finally:
            os.chdir(cwd)
        ours = load_weights(dict(model.state_dict()), vocab)
        with torch.no_grad():
            return {"val": F.cross_entropy(ours(x_val), y_val).item(), "stdout": out.getvalue()}

    if (tag, seed) not in PRISTINE:
        PRISTINE[(tag, seed)] = pristine_memo(f"{tag}-seed{seed}", train_unchanged)
    return PRISTINE[(tag, seed)]


def actual_ratios(snaps, matrices):
    """{step: {matrix: (log10 std ratio, log10 rms ratio)}} from the before/after copies."""
    out = {}
    for step in LOGGED:
        row = {}
        for name in matrices:
            try:
                b, a = snaps[f"{step}|{name}|before"].double(), snaps[f"{step}|{name}|after"].double()
            except KeyError:
                raise Unreadable(f"no snapshot of {name} around optimizer step {step}") from None
            if b.shape != a.shape or b.numel() < 2:
                raise Unreadable(f"snapshot of {name} at step {step} is malformed")
            d = a - b
            row[name] = tuple(math.log10(x) if x > 0 else -math.inf
                              for x in ((d.std() / b.std()).item(), (d.pow(2).mean().sqrt() / b.pow(2).mean().sqrt()).item()))
        out[step] = row
    return out


def compare(shown, truth, tol):
    """Worst |shown - actual| over logged steps and matrices; shown: {step: {matrix: value}}."""
    worst, where = 0.0, None
    for step in LOGGED:
        for name, real in truth[step].items():
            value = shown.get(step, {}).get(name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
                return math.inf, {"step": step, "matrix": name, "shown": str(value)[:40]}
            err = min(abs(value - r) for r in real)
            if not err <= worst:
                worst, where = err, {"step": step, "matrix": name, "shown": round(value, 3),
                                     "applied": round(real[0], 3)}
    return worst, where


def rows_by_step(rows):
    if not isinstance(rows, list):
        raise Unreadable("dashboard rows are not a list")
    out = {}
    for row in rows:
        if isinstance(row, dict) and isinstance(row.get("step"), int) and isinstance(row.get("update_ratio"), dict):
            out.setdefault(row["step"], row["update_ratio"])
    return out


def console_by_step(text, matrices):
    """{step: {matrix: value}} from console lines `step N | ... upd/param: emb -2.74 fc1 ...`."""
    out = {}
    for line in text.splitlines():
        m = re.search(r"\bstep\s+(\d+)\b", line)
        if not m or "upd/param" not in line:
            continue
        panel = line.split("upd/param", 1)[1]
        values = {}
        for name in matrices:
            short = re.escape(name.split(".")[0])
            v = re.search(rf"(?<![\w.]){short}(?:\.weight)?\s*[:=]?\s*([-+]?\d+(?:\.\d+)?)", panel)
            if v:
                values[name] = float(v.group(1))
        out.setdefault(int(m.group(1)), values)
    return out


def decide(seed, m, checks):
    for tag, peak in RUNS.items():
        steps = m.value(f"{tag}:optimizer_steps", list)
        bad = []
        for i, step in enumerate(steps):
            ok = isinstance(step, list) and len(step) == 2 and step[0] == "AdamW" and isinstance(step[1], list)
            groups = step[1] if ok else []
            want = lr_at(i, peak)
            for g in groups:
                ok = ok and isinstance(g, dict) and g.get("betas") == BETAS and g.get("ndims") in ([1], [2]) \
                    and g.get("weight_decay") == (WD if g.get("ndims") == [2] else 0.0) \
                    and isinstance(g.get("lr"), float) and abs(g["lr"] - want) <= 1e-9 * want
            ok = ok and {g["ndims"][0] for g in groups} == {1, 2}
            if not ok:
                bad.append({"step": i + 1, "seen": str(step)[:300]})
        checks.check(f"{tag}:optimizer_is_the_configured_adamw", len(steps) == STEPS and not bad,
                      value={"steps": len(steps), "first_mismatch": bad[0] if bad else None},
                      bound=f"{STEPS} AdamW steps, betas {BETAS}, wd {WD} on matrices / 0 on vectors, "
                            f"warmup+cosine lr peaking at {peak}", source="reported")

        history = rows_by_step(m.value(f"{tag}:history", list))
        logged = [r.get("step") for r in m.value(f"{tag}:history", list) if isinstance(r, dict)]
        checks.check(f"{tag}:history_logs_the_readme_steps", logged == LOGGED, value=logged[:12],
                     bound=f"steps {LOGGED}", source="reported")

        matrices = m.value(f"{tag}:matrices", list)
        if len(matrices) != 4 or not all(isinstance(n, str) for n in matrices):
            raise Unreadable(f"the trained model's weight matrices are {matrices[:8]}, expected 4")
        truth = actual_ratios(m.tensors(f"{tag}_snapshots"), matrices)
        if seed == README_SEED and tag == README_TAG:
            README_SEED_VALUES.update(matrices=matrices, truth=truth, stdout=m.value(f"{tag}:stdout", str))
        for panel, shown, tol in (("history", history, TOL),
                                  ("metrics_file", rows_by_step(m.value(f"{tag}:metrics_file", list)), TOL),
                                  ("console", console_by_step(m.value(f"{tag}:stdout", str), matrices), CONSOLE_TOL)):
            worst, where = compare(shown, truth, tol)
            numeric = math.isfinite(worst)
            checks.check(f"{tag}:{panel}_ratio_is_the_applied_update", worst < tol,
                         value=round(worst, 4) if numeric else None, reason=f"worst at {where}",
                         limit=tol if numeric else None, sense="<",
                         bound=f"< {tol} log10 at every logged step, every weight matrix: the largest |shown - "
                               "applied| over them; honest panels differ by rounding only (std vs RMS form: "
                               "~0.005), lr * grad is 1.5-2.9 off")

        x_val, y_val, vocab = validation_set(seed)
        model = load_weights(m.tensors(f"{tag}_model"), vocab)
        with torch.no_grad():
            val = F.cross_entropy(model(x_val), y_val).item()
        ref = pristine_run(tag, seed, x_val, y_val, vocab)["val"]
        gap = abs(val - ref)
        why = ("lr 3e-3 does not amplify rounding (the default, AVX2 and AVX-512 kernels end with the same loss to "
               "4 decimals), so this admits any numerically harmless change and catches changed training: "
               "a raised learning rate +0.15, plain SGD +1.7" if tag == "default" else
               "lr 0.1 is chaotic: a change in the last bit grows to 0.01-0.05 by step 300 (what separates the "
               "kernels), so this bound holds only against the rerun on the same kernel")
        checks.check(f"{tag}:training_is_the_repos", gap < TRAIN_TOL[tag], value=round(gap, 6), limit=TRAIN_TOL[tag],
                     sense="<", reason=f"validation loss {val:.4f}, unchanged repo {ref:.4f}",
                     bound=f"< {TRAIN_TOL[tag]}: |validation loss of the trained weights - the unchanged repo's|, the "
                           "unchanged repo trained by the decider in this verification (same kernel, seed, settings). "
                           f"Training never reads the panel, so a panel fix gives 0 exactly; {why}")


def labelled(line):
    """{label: first number} of a line's `label value` segments (`loss 1.160`, `val 1.355`)."""
    row = {}
    for seg in line.split("|"):
        m = re.match(r"\s*([A-Za-z][A-Za-z ]*?)\s+([-+]?\d[\d.eE+-]*)\s*$", seg)
        if m:
            try:
                row[m.group(1)] = float(m.group(2))
            except ValueError:
                pass
    return row


def readme(run, measured, checks):
    if "truth" not in README_SEED_VALUES:
        raise Unreadable(f"seed {README_SEED}'s {README_TAG} run has no usable measurement to compare with")
    matrices, truth = README_SEED_VALUES["matrices"], README_SEED_VALUES["truth"]
    lines = step_lines(run["stdout"])
    rows = {s: labelled(line) for s, line in lines.items()}
    panel = console_by_step(run["stdout"], matrices)
    logged = sorted(lines)
    checks.check("readme_run_logs_the_training",
                 logged == LOGGED and all({"loss", "val"} <= set(rows[s]) and len(panel.get(s, {})) == len(matrices)
                                          for s in logged),
                 value={"steps": logged[:12], "panel_matrices": {s: sorted(panel.get(s, {})) for s in logged[:2]}},
                 bound=f"steps {LOGGED}, each with loss, val and a panel value for {matrices}", source="readme_run")

    peak = [v for v in panel.get(PEAK_STEP, {}).values() if math.isfinite(v)]
    median = statistics.median(peak) if peak else -math.inf
    complete = len(peak) == len(matrices) and math.isfinite(median)
    checks.check("readme_run_panel_at_adamw_scale", complete and median > PEAK_MEDIAN_BOUND,
                 value=median if complete else None, reason=f"panel at step {PEAK_STEP}: {panel.get(PEAK_STEP)}",
                 limit=PEAK_MEDIAN_BOUND if complete else None, sense=">",
                 bound=f"median over the weight matrices > {PEAK_MEDIAN_BOUND} at step {PEAK_STEP} (peak lr; AdamW's "
                       "applied step: median -1.87; lr * grad: -3.68; "
                       "the lr 3e-3 run prints the same on every CPU kernel)", source="readme_run")

    worst, where = compare(panel, truth, CONSOLE_TOL)
    numeric = math.isfinite(worst)
    checks.check("readme_run_panel_is_the_applied_update", worst < CONSOLE_TOL,
                 value=round(worst, 4) if numeric else None, reason=f"worst at {where}",
                 limit=CONSOLE_TOL if numeric else None, sense="<",
                 bound=f"< {CONSOLE_TOL} log10 from the update applied in the measured seed-{README_SEED} default run, "
                       "every logged step and weight matrix", source="readme_run")

    measured_lines = step_lines(README_SEED_VALUES["stdout"])
    bad = {}
    for s in LOGGED:
        got, want = printed_numbers(lines.get(s, "")), printed_numbers(measured_lines.get(s, ""))
        if not want or len(got) != len(want) or not all(
                abs(a - b) <= 2 * max(ua, ub) + 1e-9 * abs(b) for (a, ua), (b, ub) in zip(got, want)):
            bad[f"step {s}"] = {"printed": lines.get(s, "")[:200], "measured": measured_lines.get(s, "")[:200]}
    checks.check("readme_run_matches_measured_console", not bad,
                 value=dict(list(bad.items())[:3]) or "every printed step line matches",
                 bound=f"each printed step line's numbers = the measured seed-{README_SEED} default run's, within 2 units "
                       "of the last printed digit", source="readme_run")

    val = rows.get(LOGGED[-1], {}).get("val", math.inf)
    pristine = pristine_run(README_TAG, README_SEED, *validation_set(README_SEED))
    ref = {s: labelled(line) for s, line in step_lines(pristine["stdout"]).items()}.get(LOGGED[-1], {}).get("val")
    if ref is None:
        raise Unreadable(f"the unchanged repo's run printed no val at step {LOGGED[-1]}")
    gap = abs(val - ref)
    checks.check("readme_run_val_loss_is_the_repos", gap < VAL_TOL,
                 value=round(gap, 6) if math.isfinite(gap) else None, limit=VAL_TOL if math.isfinite(gap) else None,
                 sense="<", reason=f"printed val {val}, unchanged repo {ref}",
                 bound=f"< {VAL_TOL}: |val printed at step {LOGGED[-1]} - the unchanged repo's printed val|, the "
                       f"unchanged repo's seed-{README_SEED} default run trained by the decider in this "
                       "verification (same kernel), so the user's run trains as the repo does",
                 source="readme_run")


decide_main(decide, readme=readme)
