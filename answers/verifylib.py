"""Plumbing for the hidden verifiers, in two halves that run as two processes.

Measuring (``measure.py``): ``python -I measure.py WORKSPACE OUTDIR``, in the sandbox, on a
fresh copy of the agent's files. It imports the agent's code, so nothing it prints or writes
can be trusted; it only leaves measurements (``seed_<s>.json``) and artifacts
(``seed_<s>__<name>.pt``, plain tensors) in OUTDIR. Third-party modules are imported before
the workspace goes on ``sys.path``, and the workspace goes at the end of it, so a planted
``torch/`` or ``json.py`` shadows nothing.

Deciding (``decide.py``): ``python -I decide.py OUTDIR``, in the sandbox, with no workspace.
It never imports the agent's code: it reads the measurements, recomputes what it can from the
artifacts with its own copies of the case's model and data, applies the bounds, prints one
JSON line ``{"passed", "seeds", "checks"}`` last and exits 0 only when everything passed.
Each check says whether its value was ``recomputed`` here or ``reported`` by the measuring
process. Anything malformed in OUTDIR fails the check that needed it; it never crashes.
"""

import json
import math
import os
import sys
import traceback
from contextlib import contextmanager
from pathlib import Path

SEEDS = (0, 1, 2)
MAX_JSON_BYTES = 16 * 1024 * 1024
MAX_ARTIFACT_BYTES = 512 * 1024 * 1024


# --- measuring half (runs with the agent's code) -------------------------------------------


class EntryPointMissing(Exception):
    """An entry point the task prompt told the agent to keep is gone: a failed check, with its name."""


def require(module, *names):
    """``require(train, "Config", "train")`` -> the attributes, or EntryPointMissing naming the first absent."""
    found = []
    for name in names:
        obj = module
        for part in name.split("."):
            if not hasattr(obj, part):
                raise EntryPointMissing(f"entry point {module.__name__}.{name} missing")
            obj = getattr(obj, part)
        found.append(obj)
    return found[0] if len(found) == 1 else found


def import_workspace_module(name):
    """Import one of the agent's modules; a module that is gone is a missing entry point."""
    import importlib

    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            raise EntryPointMissing(f"entry point module {name} missing") from exc
        raise


def workspace_holders(name, original, exclude=()):
    """Every module imported from the workspace (measure_main runs in it) that holds ``original`` under
    ``name``: the defining module and each one that imported it by name, so a wrapper replaces it wherever
    the agent's code may call it from. ``exclude``: modules to leave out."""
    ws = str(Path.cwd().resolve()) + "/"
    return [m for m in list(sys.modules.values())
            if m is not None and not any(m is e for e in exclude)
            and str(getattr(m, "__file__", None) or "").startswith(ws) and getattr(m, name, None) is original]


class Recorder:
    """Collects one seed's measurements and writes them to OUTDIR when the seed ends."""

    def __init__(self, out: Path):
        self.out = out
        self.values = {}
        self.current = None

    def put(self, name, value):
        self.values[name] = value

    def save(self, name, tensors):
        """A dict of tensors as an artifact the decider loads with ``weights_only=True``."""
        import torch

        clean = {k: v.detach().cpu().clone() for k, v in tensors.items()}
        torch.save(clean, self.out / f"seed_{self.current}__{name}.pt")

    @contextmanager
    def seed(self, seed):
        self.current, self.values = seed, {}
        record = {"seed": seed}
        try:
            yield self
            record["status"] = "ok"
        except EntryPointMissing as exc:
            record.update(status="error", kind="missing_entry_point", error=str(exc))
        except BaseException as exc:  # SystemExit from the agent's code included
            record.update(status="error", kind="exception", error=f"{type(exc).__name__}: {exc}"[:2000])
            traceback.print_exc(file=sys.stderr)
        record["values"] = self.values
        tmp = self.out / f".seed_{seed}.json.tmp"
        tmp.write_text(json.dumps(record, default=_jsonable))
        tmp.replace(self.out / f"seed_{seed}.json")


def _jsonable(obj):
    if hasattr(obj, "tolist"):
        return obj.tolist()
    return str(obj)


def harness_options(argv) -> dict:
    """The options only the harness passes after the positional arguments: ``--seeds=N`` (the case's
    first N seeds: ``verify --seeds N``, a generated convention check, or the first phase of a
    verdict-only verification that stops at a failing first seed) and ``--no-readme`` (skip the
    README-run checks in that first phase). Anything else is an error: a verifier never guesses what it
    was asked. A decision on fewer seeds or without the README run carries ``partial``; the harness
    never takes it for a full verification's verdict (harness/verification.py). ``--pristine-cache=DIR``
    (deciding half, inside ``validate`` only): a folder the deciders of one validation share for what they
    compute from the unchanged case alone (``pristine_memo``)."""
    opts = {"seeds": None, "readme": True, "pristine_cache": None}
    for arg in argv:
        value = arg.split("=", 1)[1] if arg.startswith("--seeds=") else ""
        if value.isdigit() and int(value) >= 1:
            opts["seeds"] = int(value)
        elif arg == "--no-readme":
            opts["readme"] = False
        elif arg.startswith("--pristine-cache=") and Path(arg.split("=", 1)[1]).is_dir():
            opts["pristine_cache"] = Path(arg.split("=", 1)[1])
        else:
            print(f"verifylib: unknown option {arg!r} (known: --seeds=N, --no-readme, --pristine-cache=DIR)",
                  file=sys.stderr)
            sys.exit(2)  # neither pass (0) nor fail (1): the verifier could not run
    return opts


def select_seeds(seeds, first_n):
    """The case's seeds, or only the first ``first_n`` of them."""
    return tuple(seeds) if first_n is None else tuple(seeds)[:first_n]


def measure_main(measure, seeds=SEEDS, preload=("numpy",)):
    """Run ``measure(seed, recorder)`` per seed against the workspace in argv[1], writing to argv[2];
    ``--seeds=N`` after them measures only the first N seeds."""
    ws, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    seeds = select_seeds(seeds, harness_options(sys.argv[3:])["seeds"])
    os.environ["OMP_NUM_THREADS"] = "1"
    import importlib

    import torch

    for name in preload:
        importlib.import_module(name)
    torch.set_num_threads(1)
    os.chdir(ws)
    sys.path.append(str(ws))
    rec = Recorder(out)
    for seed in seeds:
        with rec.seed(seed):
            measure(seed, rec)


def run_readme_config(load_config, run_fn, config_path, seed, handles=()):
    """Run the case's training entry point on its README config at ``train.seed = seed``, printing captured;
    the torch hook ``handles`` are removed afterwards whatever happens. -> (cfg, what it printed, its result)."""
    import contextlib
    import io

    out = io.StringIO()
    try:
        cfg = load_config(config_path, [f"train.seed={seed}"])
        with contextlib.redirect_stdout(out):
            result = run_fn(cfg)
    finally:
        for handle in handles:
            handle.remove()
    return cfg, out.getvalue(), result


def is_training_model(module) -> bool:
    """A module run forward in training mode, with gradients on and a trainable parameter: under a global
    forward pre-hook, the first such module is the model at its first training step."""
    import torch

    return module.training and torch.is_grad_enabled() and any(p.requires_grad for p in module.parameters())


# --- deciding half (never imports the agent's code) -----------------------------------------


class Unreadable(Exception):
    """A measurement or artifact is missing or malformed."""


def _read_regular(path: Path, limit: int) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        raise Unreadable(f"{path.name}: {exc.strerror or exc}") from exc
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not (st.st_mode & 0o170000 == 0o100000):
            raise Unreadable(f"{path.name} is not a regular file")
        if st.st_size > limit:
            raise Unreadable(f"{path.name} is {st.st_size} bytes, over the {limit}-byte limit")
        return fh.read(limit + 1)


class Measurements:
    """One seed's measurements as the measuring process left them (untrusted input)."""

    def __init__(self, out: Path, seed, record: dict):
        self.out, self.seed, self.record = out, seed, record
        values = record.get("values")
        self.values = values if isinstance(values, dict) else {}

    def value(self, name, kind=None):
        if name not in self.values:
            raise Unreadable(f"measurement '{name}' missing")
        v = self.values[name]
        if kind is not None and not isinstance(v, kind):
            raise Unreadable(f"measurement '{name}' is {type(v).__name__}, expected {kind}")
        return v

    def number(self, name):
        v = self.value(name)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise Unreadable(f"measurement '{name}' is not a finite number: {str(v)[:80]}")
        return float(v)

    def tensors(self, name, keys=None):
        """An artifact's tensors, loaded with ``weights_only=True`` (no code runs)."""
        import io

        import torch

        raw = _read_regular(self.out / f"seed_{self.seed}__{name}.pt", MAX_ARTIFACT_BYTES)
        try:
            obj = torch.load(io.BytesIO(raw), weights_only=True, map_location="cpu")
        except Exception as exc:
            raise Unreadable(f"artifact '{name}' does not load as tensors: {type(exc).__name__}: {exc}"[:300]) from exc
        if not isinstance(obj, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor)
                                                for k, v in obj.items()):
            raise Unreadable(f"artifact '{name}' is not a dict of tensors")
        if keys is not None and set(obj) != set(keys):
            raise Unreadable(f"artifact '{name}' has keys {sorted(obj)[:8]}, expected {sorted(keys)[:8]}")
        return obj


class Checks:
    """Check rows for every seed; an exception inside a seed fails that seed, never the process."""

    def __init__(self):
        self.rows = []
        self.seeds = {}
        self._seed = None

    def check(self, name, passed, value=None, bound=None, source="recomputed", reason=None, limit=None, sense=None):
        """One check row. ``bound`` is the human text: the limit and why it bounds what the bug moves.
        ``limit`` and ``sense`` make it machine-readable for ``validate --margins``: the check passes when
        the numeric ``value`` is ``< limit`` (sense "<") or ``> limit`` (sense ">")."""
        row = {"name": name, "seed": self._seed, "passed": bool(passed), "value": value, "bound": bound,
               "source": source}
        if reason:
            row["reason"] = reason
        if limit is not None:
            if sense not in ("<", ">"):
                raise ValueError(f"check {name}: sense must be '<' or '>' with a limit, not {sense!r}")
            row.update(limit=float(limit), sense=sense)
        self.rows.append(row)
        if self._seed is not None:
            self.seeds[str(self._seed)] = self.seeds.get(str(self._seed), True) and bool(passed)
        return bool(passed)

    @contextmanager
    def seed(self, seed):
        self._seed = seed
        self.seeds.setdefault(str(seed), True)
        try:
            yield seed
        except Unreadable as exc:
            self.check("measurement_usable", False, value=str(exc)[:500], reason=str(exc)[:500])
        except Exception as exc:
            self.check("decided_without_error", False, value=f"{type(exc).__name__}: {exc}"[:500])
            traceback.print_exc(file=sys.stderr)
        finally:
            self._seed = None

    def finish(self, partial=None):
        """Print the verdict line and exit. ``partial`` says what the harness asked to leave out (seeds,
        the README run): the harness, which asked, never takes such a verdict for a full one."""
        passed = bool(self.rows) and all(r["passed"] for r in self.rows)
        verdict = {"passed": passed, "seeds": self.seeds, "checks": self.rows}
        if partial:
            verdict["partial"] = partial
        print(json.dumps(verdict, default=str))
        sys.exit(0 if passed else 1)


_PRISTINE_CACHE = {"dir": None}  # set by decide_main from --pristine-cache


def pristine_memo(name, compute):
    """``compute()`` (a JSON value computed from the unchanged case alone: its training at a seed and
    settings), or what a decider of the same validation computed for ``name`` on this case, sandbox and
    kernel (the harness gives each of those its own folder). Outside ``validate`` there is no folder and
    it always computes: grading never reuses a result. JSON keeps floats exactly, so a reused value is
    the computed one bit for bit."""
    folder = _PRISTINE_CACHE["dir"]
    if folder is None:
        return compute()
    path = folder / f"{name}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    value = compute()
    tmp = folder / f".{name}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(value), encoding="utf-8")
    tmp.replace(path)
    return value


def pristine_case() -> Path:
    """The unchanged case folder, read-only, shipped in the verifier's own bundle (never the agent's
    files). A decider that needs "what the repo does today" copies it to a temp folder and runs it
    there, so the comparison is made on this machine, with this kernel and seed, not against a
    number measured once on another CPU."""
    return Path(__file__).resolve().parent / "case"


def readme_run(out: Path) -> dict:
    """What the case's own run command printed on the agent's files, run by the harness as the user
    runs it (``readme_run.json``: command, exit_code, timed_out, stdout, stderr). The harness wrote
    it, not the agent's code; Unreadable when it is missing."""
    try:
        record = json.loads(_read_regular(out / "readme_run.json", MAX_JSON_BYTES))
    except (ValueError, UnicodeDecodeError) as exc:
        raise Unreadable("readme_run.json is not valid JSON") from exc
    if not isinstance(record, dict) or not isinstance(record.get("stdout"), str):
        raise Unreadable("readme_run.json has no stdout")
    return record


_LOGGED_NUMBER = r"(?<![\w.])[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|(?i:nan|inf(?:inity)?))(?![\w.])"


def logged_rows(stdout: str) -> dict:
    """{step: {label: first number}} from a training log's lines 'step N | loss x | val acc y | ...'
    (the shape every case's train.py prints). ``nan``/``inf`` (any case) are values, never part of a
    label: 'loss nan' is {"loss": nan}, so a bound on it fails showing the NaN."""
    import re

    rows = {}
    for line in stdout.splitlines():
        segments = [seg.strip() for seg in line.split("|")]
        head = numbers(segments[0])
        if not segments[0].startswith("step") or len(head) != 1 or not head[0].is_integer():
            continue
        row = {}
        for seg in segments[1:]:
            first = re.search(_LOGGED_NUMBER, seg)
            if first is None:
                continue
            label = re.match(r"[A-Za-z ]*", seg[:first.start()]).group().strip()
            if label:
                row[label] = float(first.group())
        rows[int(head[0])] = row
    return rows


def printed_numbers(text: str) -> list:
    """(value, unit of its last printed digit) for each number in a printed line: 2.474 -> (2.474, 0.001)."""
    import re

    out = []
    for tok in re.findall(r"(?<![\w.])[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|inf)(?![\w.])", text):
        mant, _, exp = tok.lower().partition("e")
        decimals = len(mant.split(".", 1)[1]) if "." in mant else 0
        out.append((float(tok), 10.0 ** (-decimals + (int(exp) if exp else 0))))
    return out


def step_lines(text: str) -> dict:
    """{step: line} for the lines ``step N | ...`` of a run's output (the first line per step)."""
    import re

    out = {}
    for line in text.splitlines():
        m = re.match(r"\s*step\s+(\d+)\s*\|", line)
        if m:
            out.setdefault(int(m.group(1)), line)
    return out


def measured_history(m: "Measurements") -> dict:
    """{step: row} of the training history the measuring process recorded as ``history`` (a list of
    dicts); rows without a numeric ``step`` are left out, a later row of the same step wins."""
    history = {}
    for h in m.value("history", list):
        if isinstance(h, dict) and isinstance(h.get("step"), (int, float)):
            history[int(h["step"])] = h
    return history


def check_printed_rows_match_measured(checks: "Checks", rows: dict, m, fields: dict, last_step: int, bound: str):
    """The check ``readme_run_matches_measured_training``: every row the README's run printed
    (``rows``, from ``logged_rows``) equals the history the measuring process recorded for the
    README's seed (``m``; None when that seed was not measured: every row is then a mismatch), and each
    printed ``train loss`` before ``last_step`` equals the value passed to backward at that step.
    ``fields``: {printed label: (history key, tolerance)}; the backward comparison uses the
    ``train loss`` tolerance. The value shows the first 8 mismatches."""
    history, by_step = {}, []
    if m is not None:
        history = measured_history(m)
        by_step = [float(v) for v in m.value("backward_values_by_step", list)]
    loss_tol = fields["train loss"][1]
    bad = {}
    for s in sorted(rows):
        h = history.get(s, {})
        for label, (key, tol) in fields.items():
            printed, got = rows[s].get(label, math.nan), h.get(key)
            if not isinstance(got, (int, float)) or not abs(printed - got) < tol:
                bad[f"step {s} {label}"] = {"printed": printed, "measured": got}
        if s < last_step and not (s < len(by_step) and abs(rows[s].get("train loss", math.nan) - by_step[s]) < loss_tol):
            bad[f"step {s} backward"] = {"printed": rows[s].get("train loss"),
                                         "measured": by_step[s] if s < len(by_step) else None}
    return checks.check("readme_run_matches_measured_training", bool(rows) and not bad,
                        value=dict(list(bad.items())[:8]) or "all printed rows match", bound=bound,
                        source="readme_run")


def check_readme_log_equals_measured_stdout(checks: "Checks", run: dict, measured: dict, *, finals, tol: float,
                                            fields=("val acc", "val bal acc", "val loss"), rows=None,
                                            what="the final line"):
    """The checks ``readme_run_exit_ok`` and ``readme_run_matches_measured_training`` for a case whose measuring
    half records what ``train.run`` printed (``stdout``): the README's run exited cleanly, and every printed row's
    ``fields`` (``rows``: a function stdout -> {key: {label: number}}, ``logged_rows`` unless given) and the
    numbers ``finals(stdout)`` returns equal the measured seed-0 run's within ``tol`` (NaN is a mismatch).
    Returns (the run exited cleanly, the README run's final numbers) for the case's own bounds on them."""
    rows = rows or logged_rows
    ok = run.get("exit_code") == 0 and not run.get("timed_out")
    checks.check("readme_run_exit_ok", ok, value=run.get("exit_code"), source="readme_run")
    first = measured.get(0) or measured[min(measured)]
    try:
        mine = first.value("stdout", str)
    except Exception:  # noqa: BLE001 - a malformed record fails the comparison
        mine = ""
    printed, expected = rows(run.get("stdout", "")), rows(mine)
    diff = float("inf")
    if printed and set(printed) == set(expected):
        diff = max(abs(printed[k].get(f, float("nan")) - expected[k].get(f, float("nan")))
                   for k in expected for f in fields)
        diff = float("inf") if diff != diff else diff
    final_printed, final_measured = finals(run.get("stdout", "")), finals(mine)
    final_diff = max(abs(a - b) for a, b in zip(final_printed, final_measured))
    final_diff = float("inf") if final_diff != final_diff else final_diff
    worst = max(diff, final_diff)
    checks.check("readme_run_matches_measured_training", worst <= tol, value=worst,
                 bound=f"<= {tol} (every epoch row and {what} of the README run equal the measured seed-0 run)",
                 source="readme_run", limit=tol, sense="<")
    return ok, final_printed


def minus_group_means(values, groups):
    """values ((n,) or (n, k)) minus the mean of each row's group: what is left once a per-group constant (a
    sensor's gain, an animal's baseline) is taken out, so a level measured against the group's own baseline
    counts as much as the absolute one. Returns a float64 copy."""
    import numpy as np

    out = np.array(values, dtype=np.float64, copy=True)
    groups = np.asarray(groups)
    for group in np.unique(groups):
        rows = groups == group
        out[rows] -= out[rows].mean(axis=0)
    return out


def linear_fit_r2(x, y) -> float:
    """R^2 of the least-squares fit of ``y`` ((n,)) on the columns of ``x`` ((n, k)) and an intercept: how much of
    a level the model's inputs carry, whatever linear form a fix gives it. A constant ``y`` gives 1 - var(resid)
    / 1e-12 rather than a division by zero."""
    import numpy as np

    y = np.asarray(y, dtype=np.float64)
    design = np.hstack([np.asarray(x, dtype=np.float64).reshape(len(y), -1), np.ones((len(y), 1))])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    resid = y - design @ coef
    return float(1.0 - resid.var() / max(float(y.var()), 1e-12))


def max_diff(a, b) -> float:
    """Largest absolute difference of two tensors (inf when their shapes differ or a value is NaN)."""
    if a.shape != b.shape:
        return float("inf")
    return (a.double() - b.double()).abs().nan_to_num(float("inf")).max().item()


def numbers(line: str) -> list:
    """The numbers in one printed line, as floats (2.30, 7.5e-05, -3, nan, inf)."""
    import re

    return [float(x) for x in re.findall(r"(?<![\w.])[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|inf)(?![\w.])", line)]


def load_seed(out: Path, seed) -> Measurements:
    """The seed's record, or Unreadable saying why the measuring process left none."""
    path = out / f"seed_{seed}.json"
    if not path.exists():
        raise Unreadable(f"no measurement for seed {seed}: the measuring process crashed, exited or timed out first")
    try:
        record = json.loads(_read_regular(path, MAX_JSON_BYTES))
    except (ValueError, UnicodeDecodeError) as exc:
        raise Unreadable(f"seed_{seed}.json is not valid JSON") from exc
    if not isinstance(record, dict) or record.get("seed") != seed:
        raise Unreadable(f"seed_{seed}.json is not a record for seed {seed}")
    if record.get("status") != "ok":
        raise Unreadable(str(record.get("error") or "the measuring process recorded an error")[:500])
    return Measurements(out, seed, record)


def decide_main(decide, seeds=SEEDS, readme=None, readme_seed=0):
    """Run ``decide(seed, measurements, checks)`` per seed over the measurements in argv[1], then
    ``readme(readme_run(out), {seed: measurements}, checks)`` once, for the checks on the README
    run (its rows have seed None and source ``readme_run``; an exception there fails a check, never
    the process). Every case's README run must first complete: exit 0 within its time budget
    (``readme_run_completes``). ``readme`` is required: without it the verdict fails
    (``readme_run_checked``), so ``validate`` fails on the gold patch, naming what to add.

    The harness alone may add ``--seeds=N`` and ``--no-readme`` (``harness_options``): then only those
    seeds are decided, the README checks are skipped with ``--no-readme``, and the verdict line carries
    ``partial``. ``readme_seed``: the seed the README's own run trains (every case's README runs seed 0,
    the first seed). The README checks compare that run with what this process computed for that seed,
    so on fewer seeds they are made only when it is among them (``partial["readme_checked"]``): then they
    are exactly the full verification's README checks, which the harness's early stop relies on."""
    out = Path(sys.argv[1]).resolve()
    opts = harness_options(sys.argv[2:])
    _PRISTINE_CACHE["dir"] = opts["pristine_cache"]
    asked = tuple(seeds)
    seeds = select_seeds(asked, opts["seeds"])
    readme_checked = opts["readme"] and readme_seed in seeds
    partial = None
    if seeds != asked or not readme_checked:
        partial = {"decided_seeds": list(seeds), "case_seeds": list(asked), "readme_checked": readme_checked}
    os.environ["OMP_NUM_THREADS"] = "1"
    import torch

    torch.set_num_threads(1)
    checks = Checks()
    measured = {}
    for seed in seeds:
        with checks.seed(seed):
            measured[seed] = load_seed(out, seed)
            decide(seed, measured[seed], checks)
    if not readme_checked:
        pass  # the first phase of a verdict-only verification, or the README's seed not decided: not checked
    elif readme is None:  # required: without it, code that fixes itself only under measurement passes
        why = ("decide.py gives decide_main no readme= function: every verifier must check the case's own run "
               "command as the user runs it (answers/README.md, 'The README run')")
        checks.check("readme_run_checked", False, value=why, reason=why,
                     bound="decide_main(decide, readme=readme) with checks whose source is readme_run")
    else:
        try:
            run = readme_run(out)
            checks.check("readme_run_completes", run.get("exit_code") == 0 and not run.get("timed_out"),
                         value={"exit_code": run.get("exit_code"), "timed_out": run.get("timed_out"),
                                "stderr_tail": str(run.get("stderr", ""))[-300:]},
                         bound="exit 0 within the case's time budget", source="readme_run")
            readme(run, measured, checks)
        except Unreadable as exc:
            checks.check("readme_run_usable", False, value=str(exc)[:500], reason=str(exc)[:500],
                         source="readme_run")
        except Exception as exc:
            checks.check("readme_run_decided_without_error", False, value=f"{type(exc).__name__}: {exc}"[:500])
            traceback.print_exc(file=sys.stderr)
    checks.finish(partial)
