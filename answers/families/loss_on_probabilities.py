"""The probabilities-into-the-loss family (case_01, hard_case_01): the classifier's forward returns
softmax probabilities and cross-entropy receives them, so the loss cannot fall under a floor and the
gradients are compressed.

Both cases' measuring halves watch the training the same way (``LossWatch``: every optimizer step,
every backward value, what each cross-entropy / NLL call received), and both deciders read those the
same way and check the README run's log against them (``check_*``). The cases differ in their model,
data, entry points and most bound texts, which stay in their halves. hard_case_01's synthetic windows,
which both of its halves regenerate, are here too (``har_windows``). torch is imported inside the
functions, as verifylib does, so importing this module from measure.py loads nothing before
``measure_main`` has set the process up.
"""

import math

# --- measuring (called by measure.py, beside the agent's code) -------------------------------------


def classify_rows(x):
    """(probability rows?, log-probability rows?) for a 2-D loss input."""
    import torch

    x = x.detach().double()
    ones = torch.ones(len(x), dtype=x.dtype)
    probs = bool((x >= 0).all()) and bool(torch.allclose(x.sum(-1), ones, atol=1e-4))
    logprobs = bool(torch.isfinite(x).all()) and bool(torch.allclose(x.logsumexp(-1), 0 * ones, atol=1e-4))
    return probs, logprobs


class LossWatch:
    """For the training run inside ``with``: every optimizer step (class, learning rates, number of values
    stepped), every value passed to ``torch.autograd.backward`` (a one-element tensor: the loss optimized),
    and for every cross-entropy / NLL call made with gradients on a 2-D input, whether its rows were
    probabilities and whether they were log-probabilities. ``grad_inputs_only`` counts only inputs that
    require grad; ``on_loss(name, input)`` sees each counted call. Make it before the agent's modules are
    imported: it takes torch's functions then, so an import cannot swap them. Everything is put back on
    exit."""

    LOSSES = ("cross_entropy", "nll_loss")

    def __init__(self, grad_inputs_only=False, on_loss=None):
        import torch
        import torch.nn.functional as F
        from torch.optim.optimizer import register_optimizer_step_pre_hook

        self.grad_inputs_only, self.on_loss = grad_inputs_only, on_loss
        self.steps, self.backward_values = [], []
        self.loss_inputs = {name: [] for name in self.LOSSES}
        self._register = register_optimizer_step_pre_hook
        self._backward = torch.autograd.backward
        self._originals = {name: getattr(F, name) for name in self.LOSSES}

    def __enter__(self):
        import torch
        import torch.nn.functional as F

        def on_step(opt, args, kwargs):
            size = sum(p.numel() for g in opt.param_groups for p in g["params"])
            self.steps.append((type(opt).__name__, [g["lr"] for g in opt.param_groups], size))

        backward, originals = self._backward, self._originals

        def recording_backward(tensors, *args, **kwargs):
            t = tensors[0] if isinstance(tensors, (tuple, list)) else tensors
            if isinstance(t, torch.Tensor) and t.numel() == 1:
                self.backward_values.append(float(t.detach()))
            return backward(tensors, *args, **kwargs)

        def recording(name):
            def loss_fn(input, target, *args, **kwargs):
                if torch.is_grad_enabled() and isinstance(input, torch.Tensor) and input.dim() == 2 \
                        and (input.requires_grad or not self.grad_inputs_only):
                    self.loss_inputs[name].append(classify_rows(input))
                    if self.on_loss is not None:
                        self.on_loss(name, input)
                return originals[name](input, target, *args, **kwargs)
            return loss_fn

        torch.autograd.backward = recording_backward
        for name in self.LOSSES:
            setattr(F, name, recording(name))
        self._handle = self._register(on_step)
        return self

    def __exit__(self, *exc):
        import torch
        import torch.nn.functional as F

        self._handle.remove()
        torch.autograd.backward = self._backward
        for name, fn in self._originals.items():
            setattr(F, name, fn)
        return False

    def put_losses(self, rec, max_by_step):
        """The backward values (the last 100, and the first ``max_by_step`` by step) and the loss calls."""
        rec.put("backward_values", self.backward_values[-100:])
        rec.put("backward_calls", len(self.backward_values))
        rec.put("backward_values_by_step", self.backward_values[:max_by_step])
        ce, nll = self.loss_inputs["cross_entropy"], self.loss_inputs["nll_loss"]
        rec.put("cross_entropy_calls", len(ce))
        rec.put("cross_entropy_calls_on_probabilities", sum(p for p, _ in ce))
        rec.put("nll_calls", len(nll))
        rec.put("nll_calls_not_on_log_probabilities", sum(not lp for _, lp in nll))


def har_windows(n, seed, n_classes, n_channels, window, noise, spread, prototype_seed):
    """hard_case_01's synthetic sensor windows (har/data/synth.py), regenerated by both of its halves from
    this copy: (windows (n, channels, window), labels)."""
    import torch

    g = torch.Generator().manual_seed(prototype_seed)
    freq = 1.0 + 4.0 * torch.rand(n_classes, n_channels, generator=g)
    amp = 0.2 + 0.8 * torch.rand(n_classes, n_channels, generator=g)
    offset = 0.3 * torch.randn(n_classes, n_channels, generator=g)
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, n_classes, (n,), generator=g)
    speed = 1.0 + spread * torch.randn(n, 1, generator=g)
    phase = 2 * math.pi * torch.rand(n, n_channels, generator=g)
    t = torch.arange(window, dtype=torch.float32) / window
    angle = 2 * math.pi * (freq[y] * speed)[..., None] * t + phase[..., None]
    x = amp[y][..., None] * torch.sin(angle) + offset[y][..., None]
    return x + noise * torch.randn(n, n_channels, window, generator=g), y


# --- deciding (called by decide.py; never imports the agent's code) -------------------------------


def check_loss_inputs(m, checks, bound):
    """Reported: no cross-entropy call received probability rows, every NLL call log-probabilities."""
    on_probs, n_ce = m.number("cross_entropy_calls_on_probabilities"), m.number("cross_entropy_calls")
    bad_nll, n_nll = m.number("nll_calls_not_on_log_probabilities"), m.number("nll_calls")
    checks.check("loss_never_receives_probabilities", on_probs == 0 and bad_nll == 0,
                 value={"cross_entropy_calls_on_probabilities": on_probs, "cross_entropy_calls": n_ce,
                        "nll_calls_not_on_log_probabilities": bad_nll, "nll_calls": n_nll},
                 bound=bound, source="reported")


def val_metrics(logp, y):
    """The validation accuracy and mean predictive entropy the cases' train.py prints, from log-probabilities."""
    return {"val acc": (logp.argmax(-1) == y).double().mean().item(),
            "entropy": -(logp.exp() * logp).sum(-1).mean().item()}


def check_readme_logs(rows, checks, readme_steps, steps, log_every):
    """readme_run_logs_the_training: the README's logged steps, each with its loss, the last with the
    validation metrics."""
    logged = sorted(rows)
    checks.check("readme_run_logs_the_training",
                 logged == readme_steps and all("loss" in rows[s] for s in logged)
                 and {"val acc", "entropy"} <= set(rows.get(steps, {})),
                 value=logged[:20], bound=f"steps {readme_steps[0]}, {log_every}, ..., {steps} with loss, "
                 "val acc, entropy", source="readme_run")


def check_printed_losses(rows, m, checks, tol):
    """readme_run_loss_matches_measured_training: the loss the README run printed at each logged step is the
    value the measuring process saw passed to backward at that step on the README's seed (``m``, None when
    that seed has no usable measurement)."""
    logged = sorted(rows)
    by_step = [float(v) for v in m.value("backward_values_by_step", list)] if m is not None else []
    diffs = {s: (round(abs(rows[s]["loss"] - by_step[s]), 6) if s < len(by_step) and "loss" in rows[s] else None)
             for s in logged}
    worst = max((d if d is not None else math.inf for d in diffs.values()), default=math.inf)
    checks.check("readme_run_loss_matches_measured_training", bool(diffs) and worst < tol,
                 value={"max_abs_diff": worst if math.isfinite(worst) else "n/a",
                        "printed": {s: rows[s].get("loss") for s in logged[:12]},
                        "measured": {s: round(by_step[s], 4) for s in logged[:12] if s < len(by_step)}},
                 bound=f"|printed - seed-0 backward value at the same step| < {tol}", source="readme_run")


def check_printed_metrics(printed, recomputed, expected, checks, tol, bound):
    """readme_run_val_metrics_match_recomputed_model: the ``expected`` metrics this process recomputed from the
    README seed's weights (``recomputed``, empty when it could not) equal the printed ones within ``tol``."""
    got = {k: (printed.get(k), round(v, 4)) for k, v in recomputed.items()}
    checks.check("readme_run_val_metrics_match_recomputed_model",
                 len(got) == expected and all(p is not None and abs(p - r) < tol for p, r in got.values()),
                 value={k: {"printed": p, "recomputed": r} for k, (p, r) in got.items()} or "seed 0 not recomputed",
                 bound=bound, source="readme_run")
