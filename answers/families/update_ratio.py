"""The update-ratio dashboard family (case_05, hard_case_05): a "log10 upd/param" panel that shows
log10(std(lr * grad) / std(param)), the plain-SGD step, while the optimizer is AdamW.

Both cases train the same CharMLP on the same syllable corpus for 300 steps, log the panel at steps 1,
50, ..., 300 and are verified the same way; they differ in their entry points (train.Config/train.train
against config.load_config/train.run), the validation split, and the figures their bounds quote. The
measuring half records every optimizer step and snapshots the weight matrices around the logged steps
(``measure_run``); the deciding half recomputes the applied update from those, retrains the unchanged
repo for the training check, and reads the README run (``UpdateRatioDecider``). torch is imported
inside the functions, as verifylib does, so importing this module from measure.py loads nothing
before ``measure_main`` has set the process up.
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

from verifylib import Unreadable, printed_numbers, pristine_case, pristine_memo, step_lines

MAX_ROWS, MAX_STDOUT = 400, 200_000

# --- measuring (called by measure.py, beside the agent's code) -------------------------------------


def clean_ratios(row):
    """A dashboard row reduced to its step and its update_ratio values (numbers, or short strings)."""
    step = row.get("step") if isinstance(row, dict) else None
    step = step if isinstance(step, int) and not isinstance(step, bool) else (None if step is None else str(step)[:20])
    ratios = row.get("update_ratio") if isinstance(row, dict) else None
    if not isinstance(ratios, dict):
        return {"step": step, "update_ratio": None}
    out = {}
    for k, v in list(ratios.items())[:50]:
        try:
            out[str(k)] = float(v)
        except (TypeError, ValueError):
            out[str(k)] = str(v)[:40]
    return {"step": step, "update_ratio": out}


def measure_run(tag, rec, start, logged):
    """One README configuration of the agent's training, recorded under ``tag``.

    ``start(tmp, metrics)`` imports the agent's modules (after the hooks' registrars are in hand, so an
    import cannot swap them), builds the run from the case's entry points (``tmp`` a private folder,
    ``metrics`` the metrics file to pass it) and returns a no-argument callable that trains and returns
    (model, history). Global optimizer-step hooks record every step (optimizer class; per param group lr,
    betas, weight decay, parameter ndims) and copy every weight matrix just before and after the steps
    in ``logged``; the console, the history and the metrics file rows are kept as the dashboard shows them."""
    import json

    import torch
    from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

    steps, snaps, before = [], {}, {}

    def on_pre(opt, args, kwargs):
        n = len(steps) + 1
        steps.append([type(opt).__name__,
                      [{"lr": float(g.get("lr", float("nan"))),
                        "betas": [float(b) for b in g.get("betas", ())],
                        "weight_decay": float(g.get("weight_decay", 0.0)),
                        "ndims": sorted({p.ndim for p in g["params"]})} for g in opt.param_groups]])
        before.clear()
        if n in logged:
            for g in opt.param_groups:
                for p in g["params"]:
                    if p.ndim == 2:
                        before[p] = p.detach().clone()

    def on_post(opt, args, kwargs):
        n = len(steps)
        if n in logged:
            snaps[n] = {p: (b, p.detach().clone()) for p, b in before.items()}
        before.clear()

    stdout = io.StringIO()
    with tempfile.TemporaryDirectory() as tmp:
        metrics = Path(tmp) / "metrics.jsonl"
        train = start(Path(tmp), metrics)
        h_pre, h_post = register_optimizer_step_pre_hook(on_pre), register_optimizer_step_post_hook(on_post)
        try:
            with contextlib.redirect_stdout(stdout):
                model, history = train()
        finally:
            h_pre.remove()
            h_post.remove()
        rows = []
        if metrics.is_file():
            for line in metrics.read_text(errors="replace").splitlines()[:MAX_ROWS]:
                try:
                    rows.append(clean_ratios(json.loads(line)))
                except ValueError:
                    rows.append({"step": None, "update_ratio": None})
    names = {p: n for n, p in model.named_parameters()}
    tensors = {}
    for n, pairs in snaps.items():
        for p, (b, a) in pairs.items():
            name = names.get(p, f"unnamed{len(tensors)}")
            tensors[f"{n}|{name}|before"], tensors[f"{n}|{name}|after"] = b, a
    rec.put(f"{tag}:optimizer_steps", steps)
    rec.put(f"{tag}:history", [clean_ratios(r) for r in list(history)[:MAX_ROWS]])
    rec.put(f"{tag}:metrics_file", rows)
    rec.put(f"{tag}:stdout", stdout.getvalue()[-MAX_STDOUT:])
    rec.put(f"{tag}:matrices", sorted(n for n, p in model.named_parameters() if p.ndim == 2))
    rec.save(f"{tag}_snapshots", tensors)
    rec.save(f"{tag}_model", {k: v for k, v in model.state_dict().items() if isinstance(v, torch.Tensor)})


# --- deciding (called by decide.py; never imports the agent's code) -------------------------------

SYLLABLES = ["ka", "ri", "to", "mi", "sa", "lo", "ne", "vu", "da", "el", "an", "or",
             "is", "ju", "be", "qua", "th", "ny", "ce", "pho", "gri", "st", "ul", "ez"]


def syllable_words(n, seed):
    """Both cases' corpus (case_05 data.make_words, hard_case_05 corpus.syllable_names), reproduced here so
    the decider needs none of the agent's files."""
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


def context_windows(sequences, block_size):
    """(contexts, next index) tensors over each index sequence, each started from a context of zeros."""
    import torch

    xs, ys = [], []
    for seq in sequences:
        context = [0] * block_size
        for ix in seq:
            xs.append(context)
            ys.append(ix)
            context = context[1:] + [ix]
    return torch.tensor(xs), torch.tensor(ys)


def char_mlp(vocab_size, block_size=3, n_embd=16, hidden=128):
    """Both cases' CharMLP (same layers, same registration order), built here to load the trained weights."""
    import torch
    import torch.nn as nn

    class CharMLP(nn.Module):
        def __init__(self):
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

    return CharMLP()


def load_weights(state, vocab):
    """The agent's state_dict in this file's CharMLP, in registration order (names are free), shapes checked."""
    model = char_mlp(vocab)
    ours = list(model.state_dict().items())
    theirs = list(state.items())
    if len(theirs) != len(ours) or any(tuple(v.shape) != tuple(o.shape) for (_, v), (_, o) in zip(theirs, ours)):
        raise Unreadable(f"the trained model's tensors {[(k, tuple(v.shape)) for k, v in theirs][:10]} are not the "
                         "case's CharMLP")
    model.load_state_dict({k: v.float() for (k, _), (_, v) in zip(ours, theirs)})
    return model.eval()


def lr_at(step, peak_lr, warmup, total, min_ratio=0.1):
    """The cases' warmup + cosine schedule: the lr the optimizer must have used at 0-based step ``step``."""
    if step < warmup:
        return peak_lr * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return peak_lr * (min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * progress)))


def actual_ratios(snaps, matrices, logged):
    """{step: {matrix: (log10 std ratio, log10 rms ratio)}} from the before/after copies."""
    out = {}
    for step in logged:
        row = {}
        for name in matrices:
            try:
                b, a = snaps[f"{step}|{name}|before"].double(), snaps[f"{step}|{name}|after"].double()
            except KeyError:
                raise Unreadable(f"no snapshot of {name} around optimizer step {step}") from None
            if b.shape != a.shape or b.numel() < 2:
                raise Unreadable(f"snapshot of {name} at step {step} is malformed")
            d = a - b
            ratios = ((d.std() / b.std()).item(), (d.pow(2).mean().sqrt() / b.pow(2).mean().sqrt()).item())
            row[name] = tuple(math.log10(x) if x > 0 else -math.inf for x in ratios)
        out[step] = row
    return out


def compare(shown, truth, logged):
    """Worst |shown - actual| over logged steps and matrices; shown: {step: {matrix: value}}."""
    worst, where = 0.0, None
    for step in logged:
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


class UnchangedRepo:
    """The unchanged case (verifylib.pristine_case), copied to a private writable folder (the bundle is
    read-only) and trained by this process: same sandbox, same CPU kernel (ATEN_CPU_CAPABILITY), one
    thread, as the measuring half. Trusted code: the case as shipped, never the agent's files.

    ``modules``: the case's modules to import, in order; ``train(modules, root, seed, overrides)`` trains
    one run from them (inside the copy, console captured) and returns the model; ``overrides``: per run
    tag, exactly what measure.py passes the agent's code."""

    def __init__(self, case_id, modules, train, overrides):
        self.case_id, self.modules, self.train, self.overrides = case_id, modules, train, overrides
        self.runs = {}  # (tag, seed) -> {"val": validation loss, "stdout": console}

    def root(self):
        if "train" not in sys.modules:
            copy = Path(tempfile.mkdtemp(prefix=f"pristine_{self.case_id}_")) / "case"
            shutil.copytree(pristine_case(), copy)
            for path in [copy, *copy.rglob("*")]:
                path.chmod(0o755 if path.is_dir() else 0o644)
            sys.path.insert(0, str(copy))
            for name in self.modules:
                importlib.import_module(name)
        return Path(sys.modules["train"].__file__).parent

    def run(self, tag, seed, x_val, y_val, vocab):
        """Validation loss and console of the unchanged repo trained at this seed and run's settings. Training
        does not read the panel, so a fix of the panel alone reproduces this bit for bit. Inside ``validate``
        the deciders of one call on the same kernel share it (verifylib.pristine_memo)."""
        import torch
        import torch.nn.functional as F

        def train_unchanged():
            root = self.root()
            out, cwd = io.StringIO(), os.getcwd()
            try:
                os.chdir(root)
                with contextlib.redirect_stdout(out):
                    model = self.train({n: sys.modules[n] for n in self.modules}, root, seed, self.overrides[tag])
            finally:
                os.chdir(cwd)
            ours = load_weights(dict(model.state_dict()), vocab)
            with torch.no_grad():
                return {"val": F.cross_entropy(ours(x_val), y_val).item(), "stdout": out.getvalue()}

        if (tag, seed) not in self.runs:
            self.runs[(tag, seed)] = pristine_memo(f"{tag}-seed{seed}", train_unchanged)
        return self.runs[(tag, seed)]


class UpdateRatioDecider:
    """The checks of both cases (their decide.py docstrings list them), with the case's settings and bounds.

    ``runs``: tag -> peak learning rate; ``schedule``: steps, warmup, logged steps; ``optimizer``: the
    AdamW's betas and the matrices' weight decay; ``bounds``: tol, console_tol, val_tol, train_tol (per
    tag), readme_seed, readme_tag, peak_step, peak_median; ``validation_set(seed)`` -> (x, y, vocab);
    ``figures``: the case's measured numbers the bound texts quote (lr_grad_off, raised_lr, peak)."""

    def __init__(self, runs, schedule, optimizer, bounds, validation_set, unchanged, figures):
        self.runs, self.validation_set, self.unchanged, self.figures = runs, validation_set, unchanged, figures
        self.steps, self.warmup, self.logged = schedule["steps"], schedule["warmup"], schedule["logged"]
        self.betas, self.wd = optimizer["betas"], optimizer["weight_decay"]
        self.bounds = bounds
        self.readme_values = {}  # what decide() read and recomputed for the README's seed and run

    def decide(self, seed, m, checks):
        for tag, peak in self.runs.items():
            self._optimizer(tag, peak, m, checks)
            history = rows_by_step(m.value(f"{tag}:history", list))
            logged = [r.get("step") for r in m.value(f"{tag}:history", list) if isinstance(r, dict)]
            checks.check(f"{tag}:history_logs_the_readme_steps", logged == self.logged, value=logged[:12],
                         bound=f"steps {self.logged}", source="reported")
            self._panels(seed, tag, history, m, checks)
            self._training(seed, tag, m, checks)

    def _optimizer(self, tag, peak, m, checks):
        steps = m.value(f"{tag}:optimizer_steps", list)
        bad = []
        for i, step in enumerate(steps):
            ok = isinstance(step, list) and len(step) == 2 and step[0] == "AdamW" and isinstance(step[1], list)
            groups = step[1] if ok else []
            want = lr_at(i, peak, self.warmup, self.steps)
            for g in groups:
                ok = ok and isinstance(g, dict) and g.get("betas") == self.betas and g.get("ndims") in ([1], [2]) \
                    and g.get("weight_decay") == (self.wd if g.get("ndims") == [2] else 0.0) \
                    and isinstance(g.get("lr"), float) and abs(g["lr"] - want) <= 1e-9 * want
            ok = ok and {g["ndims"][0] for g in groups} == {1, 2}
            if not ok:
                bad.append({"step": i + 1, "seen": str(step)[:300]})
        checks.check(f"{tag}:optimizer_is_the_configured_adamw", len(steps) == self.steps and not bad,
                     value={"steps": len(steps), "first_mismatch": bad[0] if bad else None},
                     bound=f"{self.steps} AdamW steps, betas {self.betas}, wd {self.wd} on matrices / 0 on vectors, "
                           f"warmup+cosine lr peaking at {peak}", source="reported")

    def _panels(self, seed, tag, history, m, checks):
        rows_tol, console_tol = self.bounds["tol"], self.bounds["console_tol"]
        matrices = m.value(f"{tag}:matrices", list)
        if len(matrices) != 4 or not all(isinstance(n, str) for n in matrices):
            raise Unreadable(f"the trained model's weight matrices are {matrices[:8]}, expected 4")
        truth = actual_ratios(m.tensors(f"{tag}_snapshots"), matrices, self.logged)
        if seed == self.bounds["readme_seed"] and tag == self.bounds["readme_tag"]:
            self.readme_values.update(matrices=matrices, truth=truth, stdout=m.value(f"{tag}:stdout", str))
        for panel, shown, tol in (("history", history, rows_tol),
                                  ("metrics_file", rows_by_step(m.value(f"{tag}:metrics_file", list)), rows_tol),
                                  ("console", console_by_step(m.value(f"{tag}:stdout", str), matrices), console_tol)):
            worst, where = compare(shown, truth, self.logged)
            numeric = math.isfinite(worst)
            checks.check(f"{tag}:{panel}_ratio_is_the_applied_update", worst < tol,
                         value=round(worst, 4) if numeric else None, reason=f"worst at {where}",
                         limit=tol if numeric else None, sense="<",
                         bound=f"< {tol} log10 at every logged step, every weight matrix: the largest |shown - "
                               "applied| over them; honest panels differ by rounding only (std vs RMS form: "
                               f"~0.005), lr * grad is {self.figures['lr_grad_off']} off")

    def _training(self, seed, tag, m, checks):
        import torch
        import torch.nn.functional as F

        train_tol = self.bounds["train_tol"][tag]
        x_val, y_val, vocab = self.validation_set(seed)
        model = load_weights(m.tensors(f"{tag}_model"), vocab)
        with torch.no_grad():
            val = F.cross_entropy(model(x_val), y_val).item()
        ref = self.unchanged.run(tag, seed, x_val, y_val, vocab)["val"]
        gap = abs(val - ref)
        why = ("lr 3e-3 does not amplify rounding (the default, AVX2 and AVX-512 kernels end with the same loss to "
               "4 decimals), so this admits any numerically harmless change and catches changed training: "
               + self.figures["raised_lr"] if tag == "default" else
               "lr 0.1 is chaotic: a change in the last bit grows to 0.01-0.05 by step 300 (what separates the "
               "kernels), so this bound holds only against the rerun on the same kernel")
        checks.check(f"{tag}:training_is_the_repos", gap < train_tol, value=round(gap, 6), limit=train_tol,
                     sense="<", reason=f"validation loss {val:.4f}, unchanged repo {ref:.4f}",
                     bound=f"< {train_tol}: |validation loss of the trained weights - the unchanged repo's|, the "
                           "unchanged repo trained by the decider in this verification (same kernel, seed, settings). "
                           f"Training never reads the panel, so a panel fix gives 0 exactly; {why}")

    def readme(self, run, measured, checks):
        seed, tag, last = self.bounds["readme_seed"], self.bounds["readme_tag"], self.logged[-1]
        peak_step, bound, console_tol = self.bounds["peak_step"], self.bounds["peak_median"], self.bounds["console_tol"]
        if "truth" not in self.readme_values:
            raise Unreadable(f"seed {seed}'s {tag} run has no usable measurement to compare with")
        matrices, truth = self.readme_values["matrices"], self.readme_values["truth"]
        lines = step_lines(run["stdout"])
        rows = {s: labelled(line) for s, line in lines.items()}
        panel = console_by_step(run["stdout"], matrices)
        logged = sorted(lines)
        checks.check("readme_run_logs_the_training",
                     logged == self.logged and all({"loss", "val"} <= set(rows[s])
                                                   and len(panel.get(s, {})) == len(matrices) for s in logged),
                     value={"steps": logged[:12], "panel_matrices": {s: sorted(panel.get(s, {})) for s in logged[:2]}},
                     bound=f"steps {self.logged}, each with loss, val and a panel value for {matrices}",
                     source="readme_run")

        peak = [v for v in panel.get(peak_step, {}).values() if math.isfinite(v)]
        median = statistics.median(peak) if peak else -math.inf
        complete = len(peak) == len(matrices) and math.isfinite(median)
        checks.check("readme_run_panel_at_adamw_scale", complete and median > bound,
                     value=median if complete else None, reason=f"panel at step {peak_step}: {panel.get(peak_step)}",
                     limit=bound if complete else None, sense=">",
                     bound=f"median over the weight matrices > {bound} at step {peak_step} (peak lr; AdamW's "
                           f"applied step: {self.figures['peak']}; "
                           "the lr 3e-3 run prints the same on every CPU kernel)", source="readme_run")

        worst, where = compare(panel, truth, self.logged)
        numeric = math.isfinite(worst)
        checks.check("readme_run_panel_is_the_applied_update", worst < console_tol,
                     value=round(worst, 4) if numeric else None, reason=f"worst at {where}",
                     limit=console_tol if numeric else None, sense="<",
                     bound=f"< {console_tol} log10 from the update applied in the measured seed-{seed} default run, "
                           "every logged step and weight matrix", source="readme_run")

        measured_lines = step_lines(self.readme_values["stdout"])
        bad = {}
        for s in self.logged:
            got, want = printed_numbers(lines.get(s, "")), printed_numbers(measured_lines.get(s, ""))
            if not want or len(got) != len(want) or not all(
                    abs(a - b) <= 2 * max(ua, ub) + 1e-9 * abs(b) for (a, ua), (b, ub) in zip(got, want)):
                bad[f"step {s}"] = {"printed": lines.get(s, "")[:200], "measured": measured_lines.get(s, "")[:200]}
        checks.check("readme_run_matches_measured_console", not bad,
                     value=dict(list(bad.items())[:3]) or "every printed step line matches",
                     bound=f"each printed step line's numbers = the measured seed-{seed} default run's, within 2 "
                           "units of the last printed digit", source="readme_run")

        val_tol = self.bounds["val_tol"]
        val = rows.get(last, {}).get("val", math.inf)
        pristine = self.unchanged.run(tag, seed, *self.validation_set(seed))
        ref = {s: labelled(line) for s, line in step_lines(pristine["stdout"]).items()}.get(last, {}).get("val")
        if ref is None:
            raise Unreadable(f"the unchanged repo's run printed no val at step {last}")
        gap = abs(val - ref)
        checks.check("readme_run_val_loss_is_the_repos", gap < val_tol,
                     value=round(gap, 6) if math.isfinite(gap) else None,
                     limit=val_tol if math.isfinite(gap) else None,
                     sense="<", reason=f"printed val {val}, unchanged repo {ref}",
                     bound=f"< {val_tol}: |val printed at step {last} - the unchanged repo's printed val|, the "
                           f"unchanged repo's seed-{seed} default run trained by the decider in this "
                           "verification (same kernel), so the user's run trains as the repo does",
                     source="readme_run")
