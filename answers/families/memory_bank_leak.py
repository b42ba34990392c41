"""The memory-bank leak family: case_03 and hard_case_03 build the NCA memory bank from the Subset's
parent dataset, so validation images and their labels sit in the bank that the training objective and
the validation predictions read. Both verifiers run the same experiment (seeds 0-2 at 100 glyph classes
x 10 images, 20% validation, 60 Adam steps; seed 3 at 50 x 20, 30%, 40 steps) and make the same checks;
the cases differ in how the experiment is reached (measure.py: entry points, configuration, which
modules load the data) and in the wording of some bounds (decide.py: ``BOUNDS``, ``MARGINS``).

Measuring (``measure_bank_leak``, beside the agent's code) and deciding (``deciders``, never imports it)
share only this file's copy of the case's data generator. torch is imported inside the functions, as
the halves did, so importing this module changes nothing about when torch loads.
"""

import math

from verifylib import Unreadable, check_printed_rows_match_measured, logged_rows, max_diff, measured_history

OTHER_DRAW = 1000  # run B's validation images: the same rows of the data generated with seed + OTHER_DRAW


def _glyphs(n_classes, size, gen):
    import torch

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
    """The case's make_glyphs (data.py in case_03, glyphs.py in hard_case_03), copied so the agent cannot
    change the data."""
    import torch

    glyphs = _glyphs(n_classes, size, torch.Generator().manual_seed(4321))
    g = torch.Generator().manual_seed(seed)
    labels = torch.arange(n_classes).repeat_interleave(per_class)
    images = glyphs[labels]
    shifts = torch.randint(-1, 2, (len(labels), 2), generator=g)
    images = torch.stack([torch.roll(im, tuple(s.tolist()), dims=(0, 1)) for im, s in zip(images, shifts)])
    contrast = 0.6 + 0.8 * torch.rand(len(labels), 1, 1, generator=g)
    images = contrast * images + noise * torch.randn(images.shape, generator=g)
    return images.unsqueeze(1), labels


# --- measuring (runs with the agent's code) ------------------------------------------------------------

MAX_BY_STEP = 200


def data_source(replace_rows=None):
    """make_glyphs with the given rows' images taken from another draw (None: the data as shipped)."""
    import inspect

    import torch

    sig = inspect.signature(make_glyphs)

    def source(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        images, labels = make_glyphs(**bound.arguments)
        if replace_rows is not None:
            other, other_labels = make_glyphs(**{**bound.arguments, "seed": bound.arguments["seed"] + OTHER_DRAW})
            assert torch.equal(other_labels, labels)
            images[replace_rows] = other[replace_rows]
        return images, labels

    return source


def items(ds):
    """A split's images, labels and row ids, read the way training reads them: ds[i] -> (x, y, id)."""
    import torch

    xs, ys, ids = [], [], []
    for i in range(len(ds)):
        x, y, r = ds[i]
        xs.append(torch.as_tensor(x))
        ys.append(int(y))
        ids.append(int(r))
    return torch.stack(xs).float(), torch.tensor(ys), torch.tensor(ids)


def rows_in_data(images, full):
    """Positions in ``full`` of each image (exact content match); ValueError for an image not in the data."""
    index = {full[i].numpy().tobytes(): i for i in range(len(full))}
    rows = []
    for im in images:
        key = im.contiguous().numpy().tobytes()
        if key not in index:
            raise ValueError("build_splits returned an image that is not a row of the case's data")
        rows.append(index[key])
    return rows


def measure_bank_leak(seed, rec, *, cfg, build_splits, train_fn, patched, n_classes, per_class, tau_of,
                      history_rows, returns):
    """Runs A and B of one seed (measure.py's docstring) and records them.

    ``cfg``: the case's configuration for ``seed``; ``build_splits(cfg)`` and ``train_fn(cfg) -> (encoder,
    norm, bank, history)``: its entry points; ``patched``: the workspace modules whose ``make_glyphs`` is
    replaced by ``data_source`` for each run; ``tau_of(cfg)``: the bank's temperature;
    ``history_rows(history)``: the history as recorded; ``returns``: the error when train_fn returns
    something else."""
    import torch
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    originals = {m: m.make_glyphs for m in patched}

    def run(source):
        """Training and build_splits() on the data ``source`` gives, with the optimizer and backward watched."""
        steps, initial, backward_values = [], {}, []

        def on_step(opt, args, kwargs):
            if not steps:
                initial["params"] = [p.detach().clone() for g in opt.param_groups for p in g["params"]]
            steps.append((type(opt).__name__, [g["lr"] for g in opt.param_groups]))

        backward = torch.autograd.backward

        def recording_backward(tensors, *args, **kwargs):
            t = tensors[0] if isinstance(tensors, (tuple, list)) else tensors
            if isinstance(t, torch.Tensor) and t.numel() == 1:
                backward_values.append(float(t.detach()))
            return backward(tensors, *args, **kwargs)

        for m in patched:
            m.make_glyphs = source
        torch.autograd.backward = recording_backward
        handle = register_optimizer_step_pre_hook(on_step)
        try:
            torch.manual_seed(cfg.seed)  # as the training does before it builds the splits
            splits = build_splits(cfg)
            result = train_fn(cfg)
        finally:
            handle.remove()
            torch.autograd.backward = backward
            for m, fn in originals.items():
                m.make_glyphs = fn
        if not isinstance(result, tuple) or len(result) != 4:
            raise TypeError(returns)
        return splits, result, steps, initial.get("params"), backward_values

    full_x, full_y = make_glyphs(n_classes, per_class, seed=seed)

    # run A: the data as shipped
    (train_set, val_set), (encoder, norm, bank, history), steps, init_params, backward_values = run(data_source())
    tr_x, tr_y, tr_ids = items(train_set)
    va_x, va_y, _ = items(val_set)
    val_rows = rows_in_data(va_x, full_x)
    rec.save("split", {"train_x": tr_x, "train_y": tr_y, "val_x": va_x, "val_y": va_y})
    rec.put("optimizer_steps", len(steps))
    rec.put("optimizers", sorted({kind for kind, _ in steps}))
    rec.put("learning_rates", sorted({lr for _, lrs in steps for lr in lrs})[:10])
    rec.put("backward_values", backward_values[:5])
    rec.put("backward_values_by_step", backward_values[:MAX_BY_STEP])
    rec.put("backward_calls", len(backward_values))
    rec.put("history", history_rows(history))
    state = encoder.state_dict()
    rec.save("encoder", state)
    names = [n for n, _ in encoder.named_parameters()]
    if init_params is None or len(init_params) != len(names):
        raise ValueError("the optimizer does not step exactly the encoder's parameters")
    rec.save("encoder_initial", dict(zip(names, init_params)))
    encoder.eval()
    with torch.no_grad():
        rec.save("predictions", {
            "normalized": norm(full_x),
            "val_probs": bank.log_probs(encoder(norm(va_x)), tau_of(cfg)).exp(),
            "train_probs": bank.log_probs(encoder(norm(tr_x)), tau_of(cfg), query_ids=tr_ids).exp(),
        })

    # run B: only the validation rows' images differ
    (_, val_b), (encoder_b, norm_b, _, _), _, _, _ = run(data_source(torch.tensor(val_rows)))
    vb_x, _, _ = items(val_b)
    with torch.no_grad():
        rec.save("run_b", {"normalized": norm_b(full_x), "val_x": vb_x})
    rec.save("encoder_b", encoder_b.state_dict())


# --- deciding (never imports the agent's code) ---------------------------------------------------------

DIM, TAU, LR = 64, 0.04, 1e-3
# seed -> (classes, images per class, validation images, optimizer steps): the measuring halves' settings
SETTINGS = {0: (100, 10, 200, 60), 1: (100, 10, 200, 60), 2: (100, 10, 200, 60), 3: (50, 20, 300, 40)}
NORM_TOL, DRIFT_TOL, PROB_TOL, LOSS_TOL, HONEST_FLOOR = 1e-4, 1e-6, 1e-3, 1e-3, 2.0
README_SEED, LOG_EVERY = 0, 20  # the README's run: seed 0 at the measured settings
STEP0_VAL_LOSS_FLOOR, STEP0_VAL_ACC_CEILING = 2.0, 0.5
PRINTED_LOSS_TOL, PRINTED_CLEAN_LOSS_TOL = 1e-3, 1.5e-3
# the checks whose bound text each case words itself (decide.py's BOUNDS)
WORDED = ("step0_training_loss_is_honest", "normalizer_fitted_on_training_rows", "training_ignores_validation_rows",
          "val_predictions_read_training_rows_only", "training_rows_exclude_themselves",
          "logged_validation_matches_clean_bank", "readme_run_step0_val_loss_near_chance",
          "readme_run_step0_val_acc_not_perfect")
# those with a numeric limit a case may hand to validate --margins (decide.py's MARGINS)
LIMITED = tuple(name for name in WORDED if name not in ("training_ignores_validation_rows",
                                                          "logged_validation_matches_clean_bank"))


def _case_encoder():
    """The case's encoder: conv 1-32, conv 32-32 stride 2, linear 1152-64, unit-length output."""
    import torch.nn as nn
    import torch.nn.functional as F

    class Encoder(nn.Module):
        def __init__(self, dim=DIM, width=32):
            super().__init__()
            self.net = nn.Sequential(
                nn.Conv2d(1, width, 3, padding=1), nn.ReLU(),
                nn.Conv2d(width, width, 3, stride=2, padding=1), nn.ReLU(),
                nn.Flatten(), nn.Linear(width * 6 * 6, dim),
            )

        def forward(self, x):
            return F.normalize(self.net(x), dim=-1)

    return Encoder()


def load_encoder(state):
    """The agent's encoder weights in this file's Encoder, its three layers matched by weight shape."""
    model = _case_encoder()
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


def rows_or_missing(images, full):
    """Positions in ``full`` of each image (exact content match), -1 for an image not in the data."""
    index = {full[i].numpy().tobytes(): i for i in range(len(full))}
    return [index.get(im.contiguous().float().numpy().tobytes(), -1) for im in images]


def vote(queries, keys, key_rows, onehot, query_rows=None):
    """Class probabilities of the soft nearest-neighbour vote (leave-self-out when query_rows is given)."""
    sims = queries @ keys.T / TAU
    if query_rows is not None:
        sims = sims.masked_fill(query_rows[:, None] == key_rows[None, :], float("-inf"))
    return sims.softmax(-1) @ onehot


def scores(probs, labels):
    import torch.nn.functional as F

    logp = probs.clamp_min(1e-12).log()
    return F.nll_loss(logp, labels).item(), (logp.argmax(-1) == labels).float().mean().item()


def deciders(bounds, margins, optimizer_why=""):
    """``(decide, readme)`` for decide_main: the checks of decide.py's docstring.

    ``bounds``: the case's bound text for each check in WORDED; ``margins``: {check name in LIMITED:
    "always" | "finite"} for the checks whose row carries ``limit``/``sense`` for ``validate --margins`` (always, or
    only when the measured number is finite; a check not named carries none); ``optimizer_why``: appended
    to the optimizer check's bound."""
    missing = [name for name in WORDED if name not in bounds]
    if missing:
        raise ValueError(f"decide.py's BOUNDS has no text for {missing}")
    wrong = {name: policy for name, policy in margins.items() if name not in LIMITED or policy not in ("always", "finite")}
    if wrong:
        raise ValueError(f"decide.py's MARGINS: {wrong} (names from {LIMITED}, each 'always' or 'finite')")
    readme_seed_values = {}  # step -> (val loss, val acc) recomputed for the README's seed with a clean bank

    def check(checks, name, passed, value, measured, limit, sense, source="recomputed"):
        """A check worded by the case, with its limit where ``margins`` asks for one."""
        policy = margins.get(name)
        marked = policy == "always" or (policy == "finite" and math.isfinite(measured))
        checks.check(name, passed, value=value, bound=bounds[name], source=source,
                     limit=limit if marked else None, sense=sense if marked else None)

    def decide(seed, m, checks):
        import torch
        import torch.nn.functional as F

        n_classes, per_class, n_val, steps = SETTINGS[seed]
        n_steps, kinds, lrs = m.number("optimizer_steps"), m.value("optimizers", list), m.value("learning_rates", list)
        checks.check("optimizer_is_the_configured_adam", n_steps == steps and kinds == ["Adam"] and lrs == [LR],
                     value={"steps": n_steps, "optimizers": kinds, "lrs": lrs},
                     bound=f"{steps} Adam steps at lr {LR}{optimizer_why}", source="reported")
        first = m.value("backward_values", list)
        first = float(first[0]) if first and isinstance(first[0], (int, float)) else float("nan")
        check(checks, "step0_training_loss_is_honest", first >= HONEST_FLOOR, round(first, 4), first, HONEST_FLOOR,
              ">", source="reported")

        full_x, full_y = make_glyphs(n_classes, per_class, seed=seed)
        split = m.tensors("split", keys=["train_x", "train_y", "val_x", "val_y"])
        tr_rows, va_rows = rows_or_missing(split["train_x"], full_x), rows_or_missing(split["val_x"], full_x)
        tr_rows_t, va_rows_t = torch.tensor(tr_rows), torch.tensor(va_rows)
        other_x, _ = make_glyphs(n_classes, per_class, seed=seed + OTHER_DRAW)
        run_b = m.tensors("run_b", keys=["normalized", "val_x"])
        problems = []
        if len(va_rows) != n_val or len(tr_rows) != len(full_x) - n_val:
            problems.append(f"split sizes {len(tr_rows)}/{len(va_rows)}, expected {len(full_x) - n_val}/{n_val}")
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
                     bound=f"{len(full_x) - n_val}/{n_val} disjoint rows with their labels; run B sees the replaced rows")
        if problems:
            return

        train_x = full_x[tr_rows_t]
        mean, std = train_x.mean(0), train_x.std(0)
        normalized = (full_x - mean) / std
        pred = m.tensors("predictions", keys=["normalized", "val_probs", "train_probs"])
        diff = max_diff(pred["normalized"], normalized)
        check(checks, "normalizer_fitted_on_training_rows", diff < NORM_TOL, round(diff, 7), diff, NORM_TOL, "<")

        enc_a, enc_b = m.tensors("encoder"), m.tensors("encoder_b")
        drift = max((max_diff(enc_a[k], enc_b[k]) if k in enc_b else float("inf")) for k in enc_a)
        norm_drift = max_diff(pred["normalized"], run_b["normalized"])
        check(checks, "training_ignores_validation_rows",
              drift <= DRIFT_TOL and norm_drift <= DRIFT_TOL and set(enc_a) == set(enc_b),
              {"encoder_max_abs_diff": drift, "normalizer_max_abs_diff": norm_drift}, None, None, None)

        onehot = F.one_hot(full_y, n_classes).float()
        with torch.no_grad():
            emb = load_encoder(enc_a)(normalized)
            keys, key_onehot = emb[tr_rows_t], onehot[tr_rows_t]
            val_probs = vote(emb[va_rows_t], keys, tr_rows_t, key_onehot)
            train_probs = vote(emb[tr_rows_t], keys, tr_rows_t, key_onehot, query_rows=tr_rows_t)
            emb0 = load_encoder(m.tensors("encoder_initial"))(normalized)
            val_probs0 = vote(emb0[va_rows_t], emb0[tr_rows_t], tr_rows_t, key_onehot)
        diff = max_diff(pred["val_probs"], val_probs)
        check(checks, "val_predictions_read_training_rows_only", diff < PROB_TOL, round(diff, 6), diff, PROB_TOL, "<")
        diff = max_diff(pred["train_probs"], train_probs)
        check(checks, "training_rows_exclude_themselves", diff < PROB_TOL, round(diff, 6), diff, PROB_TOL, "<")

        history = measured_history(m)
        logged = {}
        ok = True
        for step, probs in ((0, val_probs0), (steps, val_probs)):
            loss, acc = scores(probs, full_y[va_rows_t])
            if seed == README_SEED:
                readme_seed_values[step] = (loss, acc)
            h = history.get(step, {})
            got_loss, got_acc = h.get("val_loss"), h.get("val_acc")
            good = (isinstance(got_loss, float) and isinstance(got_acc, float)
                    and abs(got_loss - loss) < LOSS_TOL and abs(got_acc - acc) <= 1.0 / n_val + 1e-9)
            ok &= good
            logged[f"step {step}"] = {"logged": [got_loss, got_acc], "clean": [round(loss, 4), round(acc, 3)]}
        check(checks, "logged_validation_matches_clean_bank", ok, logged, None, None, None)

    def readme(run, measured, checks):
        steps, n_val = SETTINGS[README_SEED][3], SETTINGS[README_SEED][2]
        fields = {"train loss": "loss", "val loss": "val_loss", "val acc": "val_acc"}
        rows = logged_rows(run["stdout"])
        logged = sorted(rows)
        readme_steps = list(range(0, steps + 1, LOG_EVERY))
        checks.check("readme_run_logs_the_training",
                     logged == readme_steps and all(set(fields) <= set(rows[s]) for s in logged),
                     value=logged[:20], bound=f"steps {readme_steps} with train loss, val loss, val acc",
                     source="readme_run")
        first = rows.get(0, {})
        val_loss0, val_acc0 = first.get("val loss", math.nan), first.get("val acc", math.nan)
        check(checks, "readme_run_step0_val_loss_near_chance", val_loss0 >= STEP0_VAL_LOSS_FLOOR, val_loss0, val_loss0,
              STEP0_VAL_LOSS_FLOOR, ">", source="readme_run")
        check(checks, "readme_run_step0_val_acc_not_perfect", val_acc0 <= STEP0_VAL_ACC_CEILING, val_acc0, val_acc0,
              STEP0_VAL_ACC_CEILING, "<", source="readme_run")

        acc_tol = 1.0 / n_val + 6e-4
        check_printed_rows_match_measured(
            checks, rows, measured.get(README_SEED),
            {label: (key, acc_tol if label == "val acc" else PRINTED_LOSS_TOL) for label, key in fields.items()},
            steps, f"printed rows = seed-0 history (losses within {PRINTED_LOSS_TOL}, acc within one image) "
                   "and backward values")
        clean = {}
        for s in (0, steps):
            printed = rows.get(s, {})
            loss, acc = readme_seed_values.get(s, (math.nan, math.nan))
            clean[f"step {s}"] = {"printed": [printed.get("val loss"), printed.get("val acc")],
                                  "clean": [round(loss, 4), round(acc, 3)]}
            clean[f"step {s}"]["ok"] = (abs(printed.get("val loss", math.nan) - loss) < PRINTED_CLEAN_LOSS_TOL
                                        and abs(printed.get("val acc", math.nan) - acc) < acc_tol)
        checks.check("readme_run_val_matches_clean_bank", all(v["ok"] for v in clean.values()), value=clean,
                     bound=f"printed val loss within {PRINTED_CLEAN_LOSS_TOL}, val acc within one image, at steps 0 "
                           f"and {steps}", source="readme_run")

    return decide, readme
