"""The PINN loss-units family (case_10, hard_case_10): a heat-slab PINN whose loss adds the squared PDE
residual in (W/m^3)^2 to the squared boundary error in K^2, so Adam follows the residual and the faces
end far off; the balance moves as (k / L^2)^2, so only a formulation in one consistent set of units
solves every plate at the same settings.

Both cases train the agent's code at the README's settings on four slabs, record the trained field on a
grid and, on the heated slab, the field with the trained parameters reset (``measure_slabs``); both
decide from those fields against the analytic solution and from what the README command printed
(``SlabDecider``). They differ in their entry points, their fourth slab, the model's attribute name, how
the probe resets the parameters (zeroed, or back to their initial values) and the wording and bound of
that probe's check. torch is imported inside the functions, as verifylib does, so importing this module
from measure.py loads nothing before ``measure_main`` has set the process up.
"""

import contextlib
import io
import re

from verifylib import Unreadable

N_GRID = 201
# the slabs both cases train on, (L [m], T_hot [K], T_cold [K], k [W/(m K)], q [W/m^3]); each case adds a fourth
COMMON_SLABS = {
    "readme": (1e-3, 500.0, 300.0, 50.0, 0.0),
    "thin": (2e-4, 600.0, 300.0, 50.0, 0.0),
    "heated": (5e-2, 500.0, 300.0, 15.0, 1e6),
}
NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?(?![\w.])")

# --- measuring (called by measure.py, beside the agent's code) -------------------------------------


def measure_slabs(rec, slabs, entry, probe_slab, reset):
    """``entry()`` imports the agent's modules (after the hook's registrar is in hand, so an import cannot
    swap it) and returns (configure, train_fn). Train ``train_fn(configure(L, T_hot, T_cold, k, q))`` on
    each slab of ``slabs`` ({name: (L, T_hot, T_cold, k, q)}) and record its optimizer steps, its field on
    ``N_GRID`` points over [0, L] and its state_dict, and for "readme" what it printed. On ``probe_slab``
    the field is evaluated once more with every parameter the optimizer stepped reset (``reset``: "zeroed"
    sets them to zero, "at_init" puts back their values before the first step), then restored; the
    artifact is ``<slab>_field_<reset>``."""
    import torch
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    configure, train_fn = entry()
    steps, initial = [], []

    def on_step(opt, args, kwargs):
        steps.append((type(opt).__name__, [g["lr"] for g in opt.param_groups]))
        if not initial:  # the parameters this training's optimizer steps, as they were before the first step
            initial.extend((p, p.detach().clone()) for g in opt.param_groups for p in g["params"])

    handle = register_optimizer_step_pre_hook(on_step)
    try:
        for name, (L, T_hot, T_cold, k, q) in slabs.items():
            steps.clear()
            initial.clear()
            cfg = configure(L, T_hot, T_cold, k, q)
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                model, _ = train_fn(cfg)
            if name == "readme":
                rec.put("readme_printed", printed.getvalue()[:20000])
            rec.put(f"{name}_optimizer_steps", len(steps))
            rec.put(f"{name}_optimizers", sorted({kind for kind, _ in steps}))
            rec.put(f"{name}_learning_rates", sorted({lr for _, lrs in steps for lr in lrs})[:10])
            x = torch.linspace(0.0, L, N_GRID, dtype=torch.float64).reshape(-1, 1)
            with torch.no_grad():
                T = model(x)
            if not isinstance(T, torch.Tensor):
                raise TypeError(f"model(x) returned {type(T).__name__}, not a tensor")
            rec.save(f"{name}_field", {"T": T.detach().double().reshape(-1)})
            if name == probe_slab:
                rec.put(f"{name}_trained_parameters", len(initial))
            if name == probe_slab and initial:
                trained = [(p, p.detach().clone()) for p, _ in initial]
                with torch.no_grad():
                    for p, p0 in initial:
                        if reset == "zeroed":
                            p.zero_()
                        else:
                            p.copy_(p0)
                    T0 = model(x)
                    for p, p1 in trained:
                        p.copy_(p1)
                if not isinstance(T0, torch.Tensor):
                    raise TypeError(f"model(x) returned {type(T0).__name__}, not a tensor")
                rec.save(f"{name}_field_{reset}", {"T": T0.detach().double().reshape(-1)})
            rec.save(f"{name}_model", {k: v for k, v in model.state_dict().items() if isinstance(v, torch.Tensor)})
    finally:
        handle.remove()


# --- deciding (called by decide.py; never imports the agent's code) -------------------------------


def exact(x, L, T_hot, T_cold, k, q):
    xi = x / L
    return T_hot + (T_cold - T_hot) * xi + q * L ** 2 / (2 * k) * xi * (1 - xi)


def temperature_field(L, T_hot, T_cold, hidden, attribute):
    """The cases' model, reproduced here: T = T_ref * MLP(2x/L - 1), its MLP under ``attribute`` (the
    name the case's state_dict keys start with)."""
    import torch.nn as nn

    model = nn.Module()
    mlp = nn.Module()
    mlp.net = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                            nn.Linear(hidden, 1)).double()
    setattr(model, attribute, mlp)
    T_ref = 0.5 * (T_hot + T_cold)
    return model, lambda x: T_ref * getattr(model, attribute).net(2.0 * x / L - 1.0)


def _unit(token):
    """One unit of the last printed digit: 2.474 -> 0.001, 7.50e-05 -> 1e-07, 300 -> 1."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 10.0 ** (-decimals + (int(exponent) if exponent else 0))


def logged_steps(text, field):
    """{step: [(token, value), ...] for loss, pde, bc, <field>(0) err, <field>(L) err, rel L2} from a run's
    output (``field``: the letter the case's log prints, T or u)."""
    rows = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("step") and "rel L2" in line:
            toks = [t for t in NUMBER.findall(line.replace(f"{field}(0)", "").replace(f"{field}(L)", "")
                                              .replace("L2", ""))]
            if len(toks) == 7 and float(toks[0]) == int(float(toks[0])):
                rows[int(float(toks[0]))] = [(t, float(t)) for t in toks[1:]]
    return rows


class SlabDecider:
    """The checks of both cases (their decide.py docstrings list them), with the case's settings and bounds.

    ``slabs`` as the measuring half runs them; ``settings``: steps, lr, hidden, model_attribute (where the
    case's model keeps its MLP), log_field (T or u), readme_seed, readme_steps, probe_slab;
    ``bounds``: face, rel, same_field, face_print, rel_print; ``texts``: the bound texts of the
    trainer, face and rel checks; ``probe``: how the measuring half reset the probe slab's parameters
    (``reset``), the check's ``limit``, the ``value_format`` of its value, ``what`` the artifact is (for
    the message) and ``bound(n_params)``, its bound text."""

    def __init__(self, slabs, settings, bounds, texts, probe):
        self.slabs, self.settings, self.bounds, self.texts, self.probe = slabs, settings, bounds, texts, probe

    def field_source(self, m, name, slab, x, recorded):
        """'recomputed' when this file's copy of the case's model, loaded with the trained weights,
        gives the recorded field; 'reported' otherwise."""
        import torch

        L, T_hot, T_cold, _, _ = slab
        model, forward = temperature_field(L, T_hot, T_cold, self.settings["hidden"], self.settings["model_attribute"])
        try:
            state = m.tensors(f"{name}_model", keys=model.state_dict().keys())
            model.load_state_dict(state)
        except (Unreadable, RuntimeError):
            return "reported"
        with torch.no_grad():
            mine = forward(x).reshape(-1)
        same = bool(torch.isfinite(mine).all()) and (mine - recorded).abs().max().item() < self.bounds["same_field"]
        return "recomputed" if same else "reported"

    def decide(self, seed, m, checks):
        import torch

        steps, lr, face_bound, rel_bound = (self.settings["steps"], self.settings["lr"], self.bounds["face"],
                                            self.bounds["rel"])
        for name, slab in self.slabs.items():
            n, kinds, lrs = (m.number(f"{name}_optimizer_steps"), m.value(f"{name}_optimizers", list),
                             m.value(f"{name}_learning_rates", list))
            checks.check(f"trainer_ran_readme_settings[{name}]", n == steps and kinds == ["Adam"] and lrs == [lr],
                         value={"steps": n, "optimizers": kinds, "lrs": lrs}, bound=self.texts["trainer"],
                         source="reported")

            L, T_hot, T_cold, k, q = slab
            T = m.tensors(f"{name}_field", keys=["T"])["T"].double().reshape(-1)
            if T.numel() != N_GRID:
                raise Unreadable(f"{name} field has {T.numel()} values, expected {N_GRID}")
            x = torch.linspace(0.0, L, N_GRID, dtype=torch.float64).reshape(-1, 1)
            source = self.field_source(m, name, slab, x, T)
            want = exact(x, *slab).reshape(-1)
            finite = bool(torch.isfinite(T).all())
            face = max(abs(T[0].item() - T_hot), abs(T[-1].item() - T_cold)) if finite else float("inf")
            rel = ((T - want).norm() / want.norm()).item() if finite else float("inf")
            tag = f"{name}: L={L:g}m,T={T_hot:g}/{T_cold:g}K,k={k:g},q={q:g}"
            checks.check(f"face_errors[{tag}]", face < face_bound, value=round(face, 4), limit=face_bound, sense="<",
                         bound=self.texts["face"], source=source)
            checks.check(f"rel_l2[{tag}]", rel < rel_bound, value=float(f"{rel:.3e}"), limit=rel_bound, sense="<",
                         bound=self.texts["rel"], source=source)
            if name == self.settings["probe_slab"]:
                self._probe(name, slab, x, want, m, checks, tag)

    def _probe(self, name, slab, x, want, m, checks, tag):
        """field_comes_from_training: the probe slab's field with the trained parameters reset, measured in
        units of the analytic field's heat-generation bump (what no boundary data gives)."""
        import torch

        L, T_hot, T_cold, _, _ = slab
        n_params = m.number(f"{name}_trained_parameters")
        if n_params > 0:
            T0 = m.tensors(f"{name}_field_{self.probe['reset']}", keys=["T"])["T"].double().reshape(-1)
            if T0.numel() != N_GRID:
                raise Unreadable(f"{name} {self.probe['what']} has {T0.numel()} values, expected {N_GRID}")
            line = (T_hot + (T_cold - T_hot) * x / L).reshape(-1)
            far = (((T0 - want).norm() / (want - line).norm()).item() if bool(torch.isfinite(T0).all())
                   else float("inf"))
        else:
            far = 0.0
        limit, value = self.probe["limit"], float(format(far, self.probe["value_format"]))
        checks.check(f"field_comes_from_training[{tag}]", far > limit, value=value, limit=limit, sense=">",
                     source="reported", bound=self.probe["bound"](n_params))

    def readme(self, run, measured, checks):
        """Checks on what the README command printed (README plate, seed 0), as the user runs it."""
        import torch

        readme_steps, readme_seed = self.settings["readme_steps"], self.settings["readme_seed"]
        face_bound, rel_bound = self.bounds["face"], self.bounds["rel"]
        face_tol, rel_tol = self.bounds["face_print"], self.bounds["rel_print"]
        rows = logged_steps(run["stdout"], self.settings["log_field"])
        last = [v for _, v in rows[readme_steps[-1]]] if readme_steps[-1] in rows else None
        ok = (sorted(rows) == readme_steps and last is not None
              and max(last[3], last[4]) < face_bound and last[5] < rel_bound)
        checks.check("readme_run_faces_and_field_fixed", ok,
                     value={"steps_logged": sorted(rows),
                            "last": None if last is None else {"T(0)_err": last[3], "T(L)_err": last[4],
                                                               "rel_l2": last[5]}},
                     bound=f"steps {readme_steps[0]}..{readme_steps[-1]} logged; at the last: face errors < "
                           f"{face_bound} K, rel L2 < {rel_bound:g}", source="readme_run")

        if readme_seed not in measured:
            raise Unreadable(f"no usable measurement for seed {readme_seed} to compare the README run with")
        m = measured[readme_seed]
        L, T_hot, T_cold, k, q = self.slabs["readme"]
        T = m.tensors("readme_field", keys=["T"])["T"].double().reshape(-1)
        x = torch.linspace(0.0, L, N_GRID, dtype=torch.float64).reshape(-1, 1)
        want = exact(x, *self.slabs["readme"]).reshape(-1)
        mine = (abs(T[0].item() - T_hot), abs(T[-1].item() - T_cold), ((T - want).norm() / want.norm()).item())
        ok = (last is not None and all(map(lambda v: v == v, mine))
              and abs(last[3] - mine[0]) <= face_tol and abs(last[4] - mine[1]) <= face_tol
              and abs(last[5] - mine[2]) <= rel_tol * max(abs(mine[2]), 1e-12))
        checks.check("readme_run_matches_trained_field", ok,
                     value={"printed": None if last is None else last[3:],
                            "recorded_seed0_field": [round(mine[0], 4), round(mine[1], 4), float(f"{mine[2]:.3e}")]},
                     bound=f"face errors within {face_tol} K, rel L2 within {rel_tol:.0%}", source="readme_run")

        theirs = logged_steps(m.value("readme_printed", str), self.settings["log_field"])
        mismatched = [s for s in readme_steps
                      if s not in rows or s not in theirs or len(rows[s]) != len(theirs[s])
                      or any(abs(a - b) > 2 * _unit(ta) + 1e-300 for (ta, a), (_, b) in zip(rows[s], theirs[s]))]
        checks.check("readme_run_matches_verifier_run", not mismatched,
                     value={"mismatched_steps": mismatched,
                            "readme_run_last": [t for t, _ in rows.get(readme_steps[-1], [])],
                            "verifier_run_last": [t for t, _ in theirs.get(readme_steps[-1], [])]},
                     bound="every logged step equal to the measuring process's seed-0 run within 2 units of the last "
                           "digit", source="readme_run")
