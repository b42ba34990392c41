"""Bug family: a split's subsets are views of ONE dataset object, so setting the evaluation transform on
the validation subset's dataset switches the training subset to it too (training runs without its
augmentation), checked on the inputs the model actually trains on; with an outcome layer read from the
run's printed lines, a check that validation reads the same inputs every pass, and a check that the
evaluated inputs still carry each record's size (its total band energy in ground motion, recomputed from the
raw files), whatever form the inputs take.

Measuring side (`run_recorded`): runs the case's training entry point at the README settings with a global
forward pre-hook that finds the first module run forward in training mode with gradients on (the model)
and fingerprints every input row it is given in training mode. A row that is bit-identical to one it was
given before is a replayed input: with a working augmentation no row repeats; without it every record
repeats exactly from its second epoch on.

Deciding side (`decide_training`, `readme_checks`): recomputes the replayed share from the recorded
counts, reads the final validation loss and the named class's recall from the printed lines, and compares
the README run's printed epoch rows with the measured seed-0 run.
"""

import hashlib
import re

from verifylib import check_readme_log_equals_measured_stdout, linear_fit_r2, run_readme_config


def run_recorded(rec, seed, load_config, run_fn, config_path):
    import torch

    state = {"rows": 0, "repeats": 0, "seen": set(), "eval": [], "eval_done": False}

    def pre_hook(module, args):
        if not args:
            return
        if "module" in state and module is state["module"] and not module.training:
            x = args[0]
            if isinstance(x, torch.Tensor) and x.ndim == 2:
                if state["eval_done"]:
                    if "first_eval" not in state and state["eval"]:
                        state["first_eval"] = state["eval"]
                    state["eval"], state["eval_done"] = [], False
                state["eval"].append(x.detach().float().clone())
            return
        if not module.training or not torch.is_grad_enabled():
            return
        if "module" not in state:
            if not any(p.requires_grad for p in module.parameters()):
                return
            state["module"] = module
        if module is not state["module"]:
            return
        state["eval_done"] = True
        x = args[0]
        if not isinstance(x, torch.Tensor) or x.ndim < 2:
            return
        flat = x.detach().reshape(x.shape[0], -1).contiguous().float().numpy()
        for row in flat:
            key = hashlib.blake2b(row.tobytes(), digest_size=12).digest()
            if key in state["seen"]:
                state["repeats"] += 1
            else:
                state["seen"].add(key)
            state["rows"] += 1

    handle = torch.nn.modules.module.register_module_forward_pre_hook(pre_hook)
    _, stdout, _ = run_readme_config(load_config, run_fn, config_path, seed, [handle])
    rec.put("stdout", stdout)
    rec.put("trained", True)
    rec.put("model_found", "module" in state)
    rec.save("inputs", {"counts": torch.tensor([state["rows"], state["repeats"]], dtype=torch.float64)})
    last = torch.cat(state["eval"]) if state["eval"] else torch.zeros(0, 0)
    first = torch.cat(state["first_eval"]) if state.get("first_eval") else torch.zeros(0, 0)
    rec.save("last_eval", {"x": last, "first": first, "truth": torch.from_numpy(truth_features())})


def truth_features(export_dir="data/exports", stations="data/stations.csv"):
    """Every record's size and gap, from the data files alone: (n, 2), column 0 = log10 of the record's
    total energy over its bands in ground motion (counts minus its own station's sensitivity at its pick
    time), column 1 = log10 of the hours since the previous pick on the network."""
    import csv
    from pathlib import Path

    import numpy as np

    epochs = {}
    with open(stations, newline="") as f:
        for row in csv.DictReader(f):
            epochs.setdefault(row["station"], []).append((float(row["from_hours"]), float(row["log10_counts_per_nm_s"]),
                                                          float(row.get("corner_hz") or 0.0)))
    rows = []
    for path in sorted(Path(export_dir).glob("*.csv")):
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            records = list(reader)
        bands = [k for k in reader.fieldnames if k.startswith("band_")]
        for r in records:
            t = float(r["t_hours"])
            _, sens, corner = [e for e in sorted(epochs[r["station"]]) if e[0] <= t][-1]
            f_hz = 0.2 * 100.0 ** (np.arange(len(bands)) / (len(bands) - 1))
            r2 = (f_hz / corner) ** 2 if corner > 0 else np.full(len(bands), np.inf)
            gain = np.log10(r2 / np.sqrt(1.0 + r2 ** 2)) if corner > 0 else np.zeros(len(bands))
            g = np.array([float(r[k]) - sens for k in bands]) - gain
            top = g.max()
            rows.append((t, top + np.log10(np.sum(10.0 ** (g - top)))))
    t = np.array([r[0] for r in rows])
    size = np.array([r[1] for r in rows], dtype=np.float64)
    order = np.argsort(t, kind="stable")
    gaps = np.empty(len(t))
    ts = t[order]
    gaps[order] = np.log10(np.maximum(np.diff(ts, prepend=ts[0] - 1.0), 1e-3))
    return np.stack([size, gaps], axis=1)


_EPOCH = re.compile(r"^epoch\s+(\d+)\s*\|(.*)$")


def epoch_rows(stdout):
    """{epoch: {label: number}} from the lines 'epoch N | train loss x | val loss y | ...'."""
    rows = {}
    for line in stdout.splitlines():
        m = _EPOCH.match(line.strip())
        if not m:
            continue
        row = {}
        for seg in m.group(2).split("|"):
            f = re.match(r"\s*([A-Za-z ]+?)\s+(-?[0-9.]+(?:e-?\d+)?|nan|inf)\s*$", seg, re.I)
            if f:
                row[f.group(1).strip()] = float(f.group(2))
        rows[int(m.group(1))] = row
    return rows


def final_numbers(stdout, label):
    rows = epoch_rows(stdout)
    loss = rows[max(rows)].get("val loss", float("nan")) if rows else float("nan")
    rec = re.search(rf"val recall by class:.*?\b{label} ([0-9.]+)", stdout)
    return loss, (float(rec.group(1)) if rec else float("nan"))


def decide_training(m, checks, s):
    m.value("trained", bool)
    checks.check("readme_config_trains", True, source="reported")
    found = m.value("model_found", bool)
    checks.check("training_forward_seen", found, source="reported")
    if not found:
        return
    rows, repeats = (float(v) for v in m.tensors("inputs", keys=["counts"])["counts"].tolist())
    checks.check("every_epoch_trained", rows >= s["min_rows"], value=rows, bound=f">= {s['min_rows']} training inputs",
                 source="recomputed")
    share = repeats / rows if rows else 1.0
    checks.check("training_inputs_augmented", share <= s["max_replayed"], value=share,
                 bound=f"<= {s['max_replayed']} (share of training inputs bit-identical to an earlier one)",
                 source="recomputed", limit=s["max_replayed"], sense="<")
    last = m.tensors("last_eval", keys=["x", "first", "truth"])
    x, first = last["x"].numpy(), last["first"].numpy()
    fixed = x.shape == first.shape and x.size > 0 and bool((x == first).all())
    checks.check("validation_inputs_fixed", fixed, value=fixed,
                 bound="the first and the last validation pass give the model bit-identical inputs", source="recomputed")
    r2, n = size_fit(x, last["truth"].numpy())
    checks.check("inputs_carry_record_size", r2 >= s["min_r2"] and n >= s["min_matched"], value=r2,
                 bound=f">= {s['min_r2']} (R^2 of each validation record's log10 total band energy in ground motion, "
                       f"recomputed from the exports and the station sheet, regressed linearly on the model's inputs; "
                       f"{n} rows matched, need {s['min_matched']})",
                 source="recomputed", limit=s["min_r2"], sense=">")
    loss, recall = final_numbers(m.value("stdout", str), s["class_label"])
    checks.check("val_loss", loss <= s["max_val_loss"], value=loss, bound=f"<= {s['max_val_loss']}",
                 source="reported", limit=s["max_val_loss"], sense="<")
    checks.check("class_recall", recall >= s["min_recall"], value=recall,
                 bound=f">= {s['min_recall']} ({s['class_label']} recall on validation)",
                 source="reported", limit=s["min_recall"], sense=">")


def size_fit(x, truth):
    """Match each evaluated input row to its record by the gap feature (whichever input column, un-standardized
    with the catalog's statistics, matches the most records; gaps shared by several records are left out),
    then regress the records' log10 total band energy (ground motion) on all the matched input columns with an
    intercept and return its R^2 and the number of rows matched."""
    import numpy as np

    x, truth = np.asarray(x, dtype=np.float64), np.asarray(truth, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] == 0 or truth.ndim != 2:
        return 0.0, 0
    size, g = truth[:, 0], truth[:, 1]
    values, counts = np.unique(np.round(g, 6), return_counts=True)
    unique = set(values[counts == 1].tolist())
    sorted_g, order = np.sort(g), np.argsort(g)
    best = ([], [])
    for c in range(x.shape[1]):
        gap = x[:, c] * g.std() + g.mean()
        idx = np.searchsorted(sorted_g, gap)
        rows, recs = [], []
        for i, v in enumerate(gap):
            j = int(np.clip(idx[i], 1, len(g) - 1))
            k = j if abs(sorted_g[j] - v) < abs(sorted_g[j - 1] - v) else j - 1
            if abs(sorted_g[k] - v) < 1e-4 and round(float(sorted_g[k]), 6) in unique:
                rows.append(i)
                recs.append(order[k])
        if len(rows) > len(best[0]):
            best = (rows, recs)
    rows, recs = best
    if len(rows) < 50:
        return 0.0, len(rows)
    return linear_fit_r2(x[rows], size[recs]), len(rows)


def readme_checks(run, measured, checks, s):
    ok, (lp, _) = check_readme_log_equals_measured_stdout(
        checks, run, measured, finals=lambda out: final_numbers(out, s["class_label"]), tol=s["print_tol"],
        fields=("train loss", "val loss", "val acc"), rows=epoch_rows, what="the final recall")
    checks.check("readme_run_val_loss", ok and lp <= s["max_val_loss"], value=lp, bound=f"<= {s['max_val_loss']}",
                 source="readme_run")
