"""Bug family: sequence-tagging labels padded with a real class (the loss's ignore value is another), so
the padded tail of every short sequence trains as background; with a calibration layer checked on the
examples the dataset actually holds.

Measuring side (`run_recorded`): runs the case's training entry point at the README settings with a global
forward pre-hook that finds the model (the first module run forward in training mode with gradients on) and
records, at every training step, the largest gradient of the loss with respect to the model's output at
padded positions (frames whose input row is exactly zero in every channel: the collate's feature padding)
and at real frames. Then it builds the datasets through the case's own builder and records, per segment,
the weld step of the first input channel (median at weld frames minus median at background frames), and
how far each raw-channel input departs from an affine function of a float64 recomputation from the run
files (counts minus the run's reference counts): any correct conversion (float64, a signed integer type,
casting before the subtraction) is affine in it to float32 rounding; integer wraparound is not.

Deciding side (`decide_training`, `readme_checks`): bounds the padded-position gradient (exactly 0 once
padding is ignored), the spread of the weld step across segments (one physical weld amplitude once every
segment is calibrated with its own gain), and the printed outcome; compares the README run's log with the
measured seed-0 run.
"""

import contextlib
import io

from verifylib import is_training_model, numbers, run_readme_config


def raw_inputs(data_dir):
    """{segment id: (frames, channels) float64 counts minus the run's reference}, from the run files."""
    from pathlib import Path

    import numpy as np

    out = {}
    for path in sorted((Path(data_dir) / "traces").glob("*.npz")):
        with np.load(path) as z:
            ends = np.cumsum(z["lengths"])
            d = z["counts"].astype(np.float64) - z["reference"].astype(np.float64)
            for sid, part in zip(z["seg_ids"], np.split(d, ends[:-1])):
                out[str(sid)] = part
    return out


def raw_steps(data_dir):
    """{segment id: (frames, 1) float64 millimetres travelled since the previous frame (the first frame takes
    the second's)}, from the run files' odometer readings."""
    from pathlib import Path

    import numpy as np

    out = {}
    for path in sorted((Path(data_dir) / "traces").glob("*.npz")):
        with np.load(path) as z:
            if "chain_mm" not in z.files:
                return out
            ends = np.cumsum(z["lengths"])
            for sid, odo in zip(z["seg_ids"], np.split(z["chain_mm"].astype(np.float64), ends[:-1])):
                st = np.diff(odo)
                out[str(sid)] = np.r_[st[:1], st][:, None] if len(st) else np.zeros((len(odo), 1))
    return out


def affine_residual(x, d):
    """Largest |x - (a d + b)| per channel over the least-squares fit, in units of d (raw counts)."""
    import numpy as np

    worst = 0.0
    for c in range(d.shape[1]):
        A = np.stack([d[:, c], np.ones(len(d))], axis=1)
        coef, *_ = np.linalg.lstsq(A, x[:, c], rcond=None)
        if abs(coef[0]) < 1e-12:
            return 1e9
        worst = max(worst, float(np.abs(x[:, c] - A @ coef).max() / abs(coef[0])))
    return worst


def run_recorded(rec, seed, load_config, run_fn, build_fn, config_path, weld_tag=1, wall_tag=0, s_ch=None):
    import torch

    state = {"pad_grad": 0.0, "real_grad": 0.0, "pad_frames": 0, "steps": 0}

    def grad_hook_for(x):
        pad = (x.detach() == 0).all(dim=-1)

        def hook(g):
            g = g.detach().abs().amax(dim=-1)
            state["steps"] += 1
            if pad.any():
                state["pad_frames"] += int(pad.sum())
                state["pad_grad"] = max(state["pad_grad"], float(g[pad].max()))
            if (~pad).any():
                state["real_grad"] = max(state["real_grad"], float(g[~pad].max()))
        return hook

    def fwd_hook(module, args, out):
        if module is state.get("module") and module.training and torch.is_grad_enabled() \
                and isinstance(out, torch.Tensor) and out.requires_grad and args \
                and isinstance(args[0], torch.Tensor) and args[0].dim() == 3 and out.dim() == 3 \
                and out.shape[:2] == args[0].shape[:2]:
            out.register_hook(grad_hook_for(args[0]))

    def pre_hook(module, args):
        if "module" in state or not is_training_model(module):
            return
        state["module"] = module

    h1 = torch.nn.modules.module.register_module_forward_pre_hook(pre_hook)
    h2 = torch.nn.modules.module.register_module_forward_hook(fwd_hook)
    cfg, stdout, _ = run_readme_config(load_config, run_fn, config_path, seed, [h1, h2])
    rec.put("stdout", stdout)
    rec.put("model_found", "module" in state)
    for k in ("pad_grad", "real_grad", "pad_frames", "steps"):
        rec.put(k, state[k])

    with contextlib.redirect_stdout(io.StringIO()):
        datasets = build_fn(cfg)
    raw = raw_inputs(cfg.data.data_dir)
    mm = raw_steps(cfg.data.data_dir)
    steps, resid, step_resid, seen = [], 0.0, 0.0, set()
    for ds in datasets:
        ids = list(getattr(ds, "seg_ids", []))
        for i in range(len(ds)):
            x, y = ds[i][0], ds[i][1]
            x, y = torch.as_tensor(x), torch.as_tensor(y)
            weld, wall = y == weld_tag, y == wall_tag
            if weld.sum() >= 3 and wall.sum() >= 10:
                steps.append(float(x[weld, 0].median() - x[wall, 0].median()))
            sid = str(ids[i]) if i < len(ids) else None
            d = raw.get(sid)
            if d is None or len(d) != len(x):
                resid = 1e9
                continue
            seen.add(sid)
            resid = max(resid, affine_residual(x.double().numpy()[:, :d.shape[1]], d))
            if sid in mm and s_ch is not None and x.shape[1] > s_ch:
                step_resid = max(step_resid, affine_residual(x.double().numpy()[:, s_ch:s_ch + 1], mm[sid]))
    rec.put("weld_steps", steps)
    rec.put("input_residual_counts", resid)
    rec.put("step_residual_mm", step_resid if mm else 1e9)
    rec.put("segments_checked", len(seen))
    rec.put("segments_in_files", len(raw))


def final_numbers(stdout):
    """(recall by tag, F1 by tag, final line's numbers) from the run's last three lines."""
    lines = [ln for ln in stdout.splitlines() if ln.strip()]
    rec_line = next((ln for ln in lines if ln.startswith("val recall by tag")), "")
    f1_line = next((ln for ln in lines if ln.startswith("val F1 by tag")), "")
    final = next((ln for ln in lines if ln.startswith("final:")), "")
    return numbers(rec_line), numbers(f1_line), numbers(final)


def decide_training(m, checks, s):
    import numpy as np

    checks.check("model_found", m.value("model_found", bool), source="reported")
    steps = m.value("steps", int)
    checks.check("training_steps_seen", steps >= s["min_steps"], value=steps, bound=f">= {s['min_steps']}",
                 source="reported")
    pad_grad = m.value("pad_grad", float)
    checks.check("padding_gets_no_gradient", pad_grad <= s["pad_grad_tol"], value=pad_grad,
                 bound=f"<= {s['pad_grad_tol']}", source="reported", limit=s["pad_grad_tol"], sense="<")
    real_grad = m.value("real_grad", float)
    checks.check("real_frames_get_gradient", real_grad > 0, value=real_grad, bound="> 0", source="reported")
    w = np.asarray(m.value("weld_steps", list), dtype=float)
    ok = len(w) >= s["min_weld_segments"] and w.mean() > 0
    cv = float(w.std() / w.mean()) if ok else 1e9
    checks.check("weld_step_consistent_across_segments", ok and cv <= s["max_weld_cv"], value=cv,
                 bound=f"<= {s['max_weld_cv']} over >= {s['min_weld_segments']} segments", source="recomputed",
                 limit=s["max_weld_cv"], sense="<")
    resid = m.value("input_residual_counts", float)
    seen, total = m.value("segments_checked", int), m.value("segments_in_files", int)
    checks.check("inputs_equal_float64_recomputation", resid <= s["max_input_residual"] and seen == total > 0,
                 value=resid, bound=f"<= {s['max_input_residual']} counts on all {total} segments (saw {seen})",
                 source="recomputed", limit=s["max_input_residual"], sense="<")
    if "max_step_residual" in s:
        sr = m.value("step_residual_mm", float)
        checks.check("frame_steps_equal_float64_recomputation", sr <= s["max_step_residual"], value=sr,
                     bound=f"<= {s['max_step_residual']} mm on every segment", source="recomputed",
                     limit=s["max_step_residual"], sense="<")
    rec, f1, final = final_numbers(m.value("stdout", str))
    n = s.get("n_tags", 4)
    ok = len(rec) == n and len(f1) == n and len(final) >= 3
    rare = float(np.mean([rec[i] for i in s["rare"]])) if ok else 0.0
    checks.check("rare_tag_recall", ok and rare >= s["min_rare_recall"], value=rare,
                 bound=f">= {s['min_rare_recall']}", source="reported", limit=s["min_rare_recall"], sense=">")
    macro = float(np.mean(f1)) if ok else 0.0
    checks.check("macro_f1", ok and macro >= s["min_macro_f1"], value=macro, bound=f">= {s['min_macro_f1']}",
                 source="reported", limit=s["min_macro_f1"], sense=">")
    acc = final[0] if ok else 0.0
    checks.check("frame_accuracy", ok and acc >= s["min_frame_acc"], value=acc,
                 bound=f">= {s['min_frame_acc']}", source="reported", limit=s["min_frame_acc"], sense=">")


def readme_checks(run, measured, checks, s):
    import numpy as np

    stdout = run.get("stdout", "")
    checks.check("readme_run_completes", run.get("exit_code") == 0 and "final:" in stdout,
                 value=run.get("exit_code"), source="readme_run")
    m0 = measured.get(0)
    mine = m0.value("stdout", str) if m0 is not None else ""
    a, b = final_numbers(stdout), final_numbers(mine)
    flat_a, flat_b = sum(a, []), sum(b, [])
    same = len(flat_a) == len(flat_b) > 0 and max(abs(x - y) for x, y in zip(flat_a, flat_b)) <= s["print_tol"]
    checks.check("readme_run_matches_measured_training", same, source="readme_run",
                 bound=f"final lines equal within {s['print_tol']}")
    n = s.get("n_tags", 4)
    ok = len(a[0]) == n and len(a[1]) == n
    macro = float(np.mean(a[1])) if ok else 0.0
    checks.check("readme_run_macro_f1", ok and macro >= s["min_macro_f1"], value=macro,
                 bound=f">= {s['min_macro_f1']}", source="readme_run")
    rare = float(np.mean([a[0][i] for i in s["rare"]])) if ok else 0.0
    checks.check("readme_run_rare_recall", ok and rare >= s["min_rare_recall"], value=rare,
                 bound=f">= {s['min_rare_recall']}", source="readme_run")
