"""The parameter-group weight-decay family (frontier_case_06): an optimizer's "no decay" groups are chosen by
name substrings written for another model's parameter names (`"LayerNorm.weight"`, `"embeddings."`), so in a
model whose modules are called `ln_1`, `ln_f`, `tok_emb`, `pos_emb` nothing but the biases is exempt and the
normalization gains and embedding rows get the decay meant for the matrices. Under Adam's coupled L2 penalty
a rarely seen token's row is pulled to zero between its rare gradients, so the queues whose evidence is rare
words are predicted like the big ones.

frontier_case_06 adds a second, independent layer in how the training set is assembled: per-ticket recency
weights are computed over the training rows in export order while the dataset object keeps its rows in
another order (longest first), so every weight belongs to another ticket and the longest tickets train at the
oldest tickets' tiny weights. The deciding half recomputes the routing accuracy on the validation tickets that
suffer from it (other queues' tickets that talk at length about a delivery) and shipping's precision.

The measuring half runs the README configuration through the case's entry points and records, for every
parameter of the returned model (by module type, not by name), the weight decay of the optimizer group that
holds it, and the validation predictions run() returned. The deciding half recomputes per-queue recall,
macro-F1 and per-channel accuracy from those predictions against its own regeneration of the validation export.
torch is imported inside the functions, as verifylib does.
"""

import re

# --- measuring (called by measure.py, beside the agent's code) -------------------------------------


def param_kind(module, name):
    import torch.nn as nn

    if isinstance(module, nn.Embedding):
        return "embedding"
    if isinstance(module, (nn.LayerNorm, nn.GroupNorm, nn.BatchNorm1d)) or "Norm" in type(module).__name__:
        return "norm"
    if name.endswith("bias"):
        return "bias"
    if isinstance(module, nn.Linear) and name == "weight":
        return "matrix"
    return "other"


def run_recorded(rec, seed, load_config, run_fn, config, overrides=()):
    """Train `config` at `seed` through run_fn; record every parameter's group decay and the predictions."""
    import contextlib
    import io

    from torch.optim.optimizer import register_optimizer_step_post_hook

    seen = {"optimizers": [], "steps": 0}

    def on_step(optimizer, args, kwargs):
        seen["steps"] += 1
        if not any(o is optimizer for o in seen["optimizers"]):
            seen["optimizers"].append(optimizer)

    handle = register_optimizer_step_post_hook(on_step)
    buf = io.StringIO()
    try:
        cfg = load_config(config, [f"train.seed={seed}", *overrides])
        with contextlib.redirect_stdout(buf):
            result = run_fn(cfg)
    finally:
        handle.remove()
    rec.put("stdout", buf.getvalue()[-50_000:])
    rec.put("optimizer_steps", seen["steps"])
    model = getattr(result, "model", None)
    if model is None and isinstance(result, (tuple, list)) and result:
        model = result[0]
    decay_of = {}
    for opt in seen["optimizers"]:
        for group in opt.param_groups:
            for p in group["params"]:
                decay_of.setdefault(id(p), []).append(
                    {"optimizer": type(opt).__name__, "weight_decay": float(group.get("weight_decay", 0.0) or 0.0)})
    params = []
    if model is not None:
        for mname, module in model.named_modules():
            for pname, p in module.named_parameters(recurse=False):
                if p.requires_grad:
                    params.append({"name": f"{mname}.{pname}".strip("."), "kind": param_kind(module, pname),
                                   "numel": int(p.numel()), "groups": decay_of.get(id(p), [])})
    rec.put("parameters", params)
    preds = getattr(result, "predictions", None)
    rec.put("predictions", [[str(i)[:20], str(q)[:40]] for i, q in list(preds or [])[:5000]])


# --- deciding (called by decide.py; never imports the agent's code) ---------------------------------


def recompute_scores(predictions, records, queues, rare):
    """Per-queue recall, macro-F1 and per-channel accuracy of `predictions` against `records`."""
    pred = {i: q for i, q in predictions}
    tp = {q: 0 for q in queues}
    support = {q: 0 for q in queues}
    predicted = {q: 0 for q in queues}
    channel = {}
    missing = 0
    for r in records:
        p = pred.get(r["id"])
        if p is None:
            missing += 1
        support[r["queue"]] += 1
        if p in predicted:
            predicted[p] += 1
        ok = p == r["queue"]
        tp[r["queue"]] += ok
        c = channel.setdefault(r["channel"], [0, 0])
        c[0] += ok
        c[1] += 1
    f1s, recall = [], {}
    for q in queues:
        rec = tp[q] / max(support[q], 1)
        prec = tp[q] / max(predicted[q], 1)
        recall[q] = rec
        f1s.append(2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0)
    return {"missing": missing, "recall": recall, "rare_recall": {q: recall[q] for q in rare},
            "macro_f1": sum(f1s) / len(f1s), "accuracy": sum(tp.values()) / max(len(records), 1),
            "channel_accuracy": {k: v[0] / v[1] for k, v in channel.items()}}


SCORES = {}


def decide_training(seed, m, checks, settings, records):
    """Per-seed checks on the recorded README-configuration run (see decide.py for the bounds)."""
    params = m.value("parameters", list)
    checks.check("readme_config_trains", bool(params) and m.number("optimizer_steps") > 0,
                 value={"parameters": len(params), "optimizer_steps": m.number("optimizer_steps")},
                 bound="train.run returns the trained model and its optimizer steps", source="reported")

    def decays(p):
        return [g.get("weight_decay") for g in p.get("groups", [])] if isinstance(p, dict) else [None]

    exempt = [p for p in params if isinstance(p, dict) and p.get("kind") in ("embedding", "norm")]
    decayed = [p["name"] for p in exempt if not decays(p) or any(d != 0.0 for d in decays(p))]
    checks.check("norms_and_embeddings_not_decayed", bool(exempt) and not decayed,
                 value={"checked": len(exempt), "decayed": decayed[:12]},
                 bound="every nn.Embedding and normalization parameter sits in an optimizer group with "
                       "weight_decay 0", source="reported")
    matrices = [p for p in params if isinstance(p, dict) and p.get("kind") == "matrix"]
    undecayed = [p["name"] for p in matrices
                 if not decays(p) or any(not isinstance(d, (int, float)) or d < settings["min_matrix_decay"]
                                         for d in decays(p))]
    checks.check("matrices_keep_their_decay", bool(matrices) and not undecayed,
                 value={"checked": len(matrices), "undecayed": undecayed[:12]},
                 bound=f"every nn.Linear weight keeps weight_decay >= {settings['min_matrix_decay']} "
                       "(the config's 0.008; turning decay off everywhere is not the fix)", source="reported")
    s = recompute_scores(m.value("predictions", list), records, settings["queues"], settings["rare"])
    SCORES[seed] = s
    checks.check("every_validation_ticket_predicted", s["missing"] == 0, value=s["missing"],
                 bound="run() returns a queue for each of the 1,200 validation tickets")
    worst_rare = min(s["rare_recall"].values())
    checks.check("rare_queues_routed", worst_rare >= settings["min_rare_recall"],
                 value={q: round(v, 3) for q, v in s["rare_recall"].items()},
                 bound=f">= {settings['min_rare_recall']} recall on each small queue (recomputed from the "
                       "predictions against the regenerated validation export)",
                 limit=settings["min_rare_recall"], sense=">")
    if settings.get("min_chat_accuracy"):
        chat = s["channel_accuracy"].get("chat", 0.0)
        checks.check("chat_tickets_routed", chat >= settings["min_chat_accuracy"], value=round(chat, 4),
                     bound=f">= {settings['min_chat_accuracy']} accuracy on the chat channel's validation tickets "
                           "(recomputed from the predictions against the regenerated validation export)",
                     limit=settings["min_chat_accuracy"], sense=">")
    if settings.get("mixed_ids"):
        pred = {i: q for i, q in m.value("predictions", list)}
        mixed = [r for r in records if r["id"] in settings["mixed_ids"]]
        acc = sum(pred.get(r["id"]) == r["queue"] for r in mixed) / max(len(mixed), 1)
        bound = settings["min_mixed_accuracy"]
        checks.check("mixed_tickets_routed", bool(mixed) and acc >= bound, value=round(acc, 4),
                     bound=f">= {bound} accuracy on the {len(mixed)} validation tickets of other queues whose "
                           f"customer text mentions a {settings['mixed_into']} keyword (recomputed against the "
                           "regenerated validation export)", limit=bound, sense=">")
        into = [r for r in records if pred.get(r["id"]) == settings["mixed_into"]]
        prec = sum(r["queue"] == settings["mixed_into"] for r in into) / max(len(into), 1)
        bound = settings["min_mixed_into_precision"]
        checks.check(f"{settings['mixed_into']}_precision", bool(into) and prec >= bound, value=round(prec, 4),
                     bound=f">= {bound} precision of the {settings['mixed_into']} queue (recomputed)",
                     limit=bound, sense=">")
    checks.check("macro_f1", s["macro_f1"] >= settings["min_macro_f1"], value=round(s["macro_f1"], 4),
                 bound=f">= {settings['min_macro_f1']} macro-F1 over the eight queues (recomputed)",
                 limit=settings["min_macro_f1"], sense=">")


SUMMARY_LINE = re.compile(r"^accuracy\s+([\d.]+)\s+\|\s+macro-F1\s+([\d.]+)\s*$")
QUEUE_LINE = re.compile(r"^([a-z_]+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)( \*)?\s*$")


def readme_checks(run, measured, checks, settings, seed=0):
    """The README's own command printed the validation table of the run the measuring half recorded."""
    s = SCORES.get(seed)
    stdout = str(run.get("stdout", ""))
    summary = [SUMMARY_LINE.match(line) for line in stdout.splitlines()]
    summary = [h for h in summary if h]
    rows = {h.group(1): float(h.group(4)) for h in (QUEUE_LINE.match(line) for line in stdout.splitlines()) if h}
    if s is None or not summary:
        checks.check("readme_run_matches_measured_report", False,
                     value="no summary line printed" if s is not None else "no scores measured",
                     bound="the README run prints 'accuracy A | macro-F1 F'", source="readme_run")
        return
    acc, mf1 = float(summary[-1].group(1)), float(summary[-1].group(2))
    diffs = [abs(acc - s["accuracy"]) / 0.001, abs(mf1 - s["macro_f1"]) / 0.001]
    missing = [q for q in settings["queues"] if q not in rows]
    diffs += [abs(rows[q] - s["recall"][q]) / 0.001 for q in settings["queues"] if q in rows]
    worst = max(diffs)
    checks.check("readme_run_matches_measured_report", not missing and worst <= 2.0,
                 value={"missing_queues": missing, "worst_in_last_digits": round(worst, 2)},
                 bound="the printed accuracy, macro-F1 and every queue's recall equal the measured seed-0 run's "
                       "(recomputed from its predictions) within 2 units of the last printed digit",
                 source="readme_run", limit=2.0 + 1e-9, sense="<")
    checks.check("readme_run_meets_the_target", mf1 >= settings["min_macro_f1"], value=mf1,
                 bound=f"printed macro-F1 >= {settings['min_macro_f1']}", source="readme_run",
                 limit=settings["min_macro_f1"], sense=">")
