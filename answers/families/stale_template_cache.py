"""The stale tokenization cache (case_08, hard_case_08): a cache keyed without the chat template's
contents hands training the tokenization of an old template after an in-place template edit.

Both cases are checked the same way, against the case's own module of verifier copies (``copies``:
c08_common / h08_common, with OwnTokenizer, tokenize, shipped_rows, README_TEMPLATE, probe_rows and
probe_steps); only the entry points, the README command and the bounds' wording differ, and those
stay in each case's halves.
"""

import ast
import io
import json
import os
import runpy
import shutil
import sys
import tempfile
from contextlib import redirect_stdout
from pathlib import Path

from verifylib import Unreadable, import_workspace_module, numbers, require

OLD_MTIME = 1_000_000_000  # 2001-09-09
IGNORE = -100

# --- measuring half (measure.py, beside the agent's code) ------------------------------------------

_snapshot = {}


def snapshot_workspace():
    """Every file of the workspace as shipped to the verifier (bytes and times), once."""
    if not _snapshot:
        for p in sorted(Path(".").rglob("*")):
            if p.is_file() and not p.is_symlink() and "__pycache__" not in p.parts:
                st = p.stat()
                _snapshot[p.as_posix()] = (p.read_bytes(), st.st_atime_ns, st.st_mtime_ns)


def restore_workspace():
    """Put the workspace back as shipped: remove files made since, rewrite changed ones with their times."""
    for p in sorted(Path(".").rglob("*"), reverse=True):
        if "__pycache__" in p.parts:
            continue
        if (p.is_file() or p.is_symlink()) and p.as_posix() not in _snapshot:
            p.unlink()
        elif p.is_dir() and not any(k.startswith(p.as_posix() + "/") for k in _snapshot):
            shutil.rmtree(p, ignore_errors=True)
    for name, (data, atime, mtime) in _snapshot.items():
        p = Path(name)
        if not p.is_file() or p.is_symlink() or p.read_bytes() != data:
            if p.is_symlink():
                p.unlink()
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        os.utime(p, ns=(atime, mtime))


def flat(examples):
    """A list of (ids, labels) as three tensors: flat ids, flat labels, offsets."""
    import torch

    ids, labels, offsets = [], [], [0]
    for ex in examples:
        a, b = [int(i) for i in ex[0]], [int(v) for v in ex[1]]
        ids += a
        labels += b
        offsets.append(len(ids) if len(a) == len(b) else -1)
    return {"ids": torch.tensor(ids, dtype=torch.long), "labels": torch.tensor(labels, dtype=torch.long),
            "offsets": torch.tensor(offsets, dtype=torch.long)}


def _readme_run(rec, readme_argv, steps):
    """The README run in-process: the first training batches that reach the model, and what it printed."""
    import torch
    from torch.nn.modules.module import register_module_forward_pre_hook

    batches, depth = [], [0]

    def pre(module, args):
        if depth[0] == 0 and torch.is_grad_enabled() and len(batches) < steps + 1:
            x = args[0] if args else None
            if torch.is_tensor(x) and x.dim() == 2 and not x.is_floating_point():
                batches.append(x.detach().clone())

    handle = register_module_forward_pre_hook(pre)
    argv = sys.argv
    sys.argv = readme_argv
    printed = io.StringIO()
    try:
        with redirect_stdout(printed):
            runpy.run_path("train.py", run_name="__main__")
    finally:
        sys.argv = argv
        handle.remove()
        sys.stderr.write(printed.getvalue()[-5000:])
    rec.put("readme_run_printed", printed.getvalue()[:20000])
    rec.put("readme_run_batches", len(batches))
    for i, x in enumerate(batches):
        rec.save(f"readme_batch_{i}", {"x": x})


def measure_template_cache(seed, rec, *, tokenizer_module, data_entry_points, readme_argv, readme_run_steps,
                           copies, probe_prefix, examples_of=lambda result: result[1]):
    """One seed's measurements (the checks are described in each case's measure.py).

    ``tokenizer_module``: the agent's module holding CharTokenizer. ``data_entry_points(train)`` ->
    ``(config, prepare_data)``, where ``config(seed=S)`` is the README configuration and
    ``config(seed=S, train_data=, template=, cache_dir=)`` points it at the probe's files.
    ``examples_of(result)``: the (ids, labels) examples in what prepare_data returned.
    ``readme_argv``: sys.argv of the README run (its seed and step count already in)."""
    snapshot_workspace()
    tokenizer = import_workspace_module(tokenizer_module)
    CharTokenizer = require(tokenizer, "CharTokenizer")
    encode = require(CharTokenizer, "encode")
    train = import_workspace_module("train")
    config, prepare_data = data_entry_points(train)

    calls = [0]

    def counting_encode(self, *args, **kwargs):
        calls[0] += 1
        return encode(self, *args, **kwargs)

    def prepared(cfg):
        calls[0] = 0
        result = prepare_data(cfg)
        return flat(examples_of(result)), calls[0]

    CharTokenizer.encode = counting_encode
    try:
        # 1. the README run, from the shipped workspace
        restore_workspace()
        _readme_run(rec, readme_argv, readme_run_steps)

        # 2. the README configuration's data, and a rerun
        restore_workspace()
        got, n = prepared(config(seed=seed))
        rec.save("shipped", got)
        rec.put("shipped_encode_calls", n)
        got, n = prepared(config(seed=seed))
        rec.save("shipped_rerun", got)
        rec.put("shipped_rerun_encode_calls", n)

        # 3. the probe: in-place single-field template edits with one cache folder
        with tempfile.TemporaryDirectory(prefix=probe_prefix) as tmp:
            tmp = Path(tmp)
            data = tmp / "chats.jsonl"
            data.write_text("".join(json.dumps(r) + "\n" for r in copies.probe_rows(seed)))
            tpl = tmp / "chat.json"
            cfg = config(seed=seed, train_data=str(data), template=str(tpl), cache_dir=str(tmp / "cache"))
            counts = {}
            for name, template, action, _ in copies.probe_steps(seed):
                if action != "rerun":
                    tpl.write_text(json.dumps(template, indent=2))
                if action == "restore_old_mtime":
                    os.utime(tpl, (OLD_MTIME, OLD_MTIME))
                got, counts[name] = prepared(cfg)
                rec.save(f"probe_{name}", got)
            rec.put("probe_encode_calls", counts)
            rec.put("probe_cache_files", sum(p.is_file() for p in (tmp / "cache").rglob("*")))
    finally:
        CharTokenizer.encode = encode
        restore_workspace()


# --- deciding half (decide.py; never imports the agent's code) ----------------------------------------


def unflat(t):
    ids, labels, offsets = t["ids"].tolist(), t["labels"].tolist(), t["offsets"].tolist()
    if any(o < 0 for o in offsets) or offsets != sorted(offsets) or offsets[-1] != len(ids) or len(ids) != len(labels):
        raise Unreadable("prepared examples are malformed (ids and labels of different lengths)")
    return [(ids[a:b], labels[a:b]) for a, b in zip(offsets[:-1], offsets[1:])]


def compare(got, want, tok):
    """None when equal, else a short description of the first difference."""
    if len(got) != len(want):
        return f"{len(got)} examples, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            part = "ids" if g[0] != w[0] else "labels"
            return {"example": i, "differs_in": part, "got": tok.decode(g[0])[:70], "expected": tok.decode(w[0])[:70]}
    return None


def decide_template_cache(seed, m, checks, *, copies, readme_run_steps, bounds):
    """The per-seed checks. ``bounds``: each check's bound text, formatted with ``batches`` (the README
    run's expected batch count), ``probe`` and ``shipped`` (conversations in the probe and the shipped data)."""
    shipped_want = copies.tokenize(copies.shipped_rows(), copies.README_TEMPLATE)
    pad = copies.OwnTokenizer().pad_id

    n_batches = m.number("readme_run_batches")
    bad_rows, rows, first_bad = 0, 0, None
    prefixes = {tuple(ids[:-1]) for ids, _ in shipped_want}
    for i in range(int(n_batches)):
        x = m.tensors(f"readme_batch_{i}", keys=["x"])["x"]
        for row in x.tolist():
            rows += 1
            n = len(row)
            while n and row[n - 1] == pad:
                n -= 1
            if tuple(row[:n]) not in prefixes:
                bad_rows += 1
                first_bad = first_bad or copies.OwnTokenizer().decode(row[:n])[:70]
    checks.check("readme_run_trains_on_current_template",
                 n_batches == readme_run_steps + 1 and rows > 0 and bad_rows == 0,
                 value={"batches": n_batches, "rows": rows, "rows_not_rendered_with_current_template": bad_rows,
                        "first_such_row": first_bad},
                 bound=bounds["readme_run_trains_on_current_template"].format(batches=readme_run_steps + 1))

    diffs = {name: compare(unflat(m.tensors(name, keys=["ids", "labels", "offsets"])), shipped_want,
                           copies.OwnTokenizer())
             for name in ("shipped", "shipped_rerun")}
    checks.check("readme_config_data_matches_current_template", not any(diffs.values()),
                 value={k: v for k, v in diffs.items() if v} or "equal",
                 bound=bounds["readme_config_data_matches_current_template"])

    counts = m.value("probe_encode_calls", dict)
    rows = copies.probe_rows(seed)
    failing, hits = {}, {}
    for name, template, _action, must_hit in copies.probe_steps(seed):
        d = compare(unflat(m.tensors(f"probe_{name}", keys=["ids", "labels", "offsets"])),
                    copies.tokenize(rows, template), copies.OwnTokenizer())
        if d:
            failing[name] = d
        if must_hit:
            hits[name] = counts.get(name)
    checks.check("every_template_edit_is_picked_up", not failing,
                 value={"failing_steps": sorted(failing), "first": next(iter(failing.values()), None)},
                 bound=bounds["every_template_edit_is_picked_up"])

    hits["readme_config_rerun"] = m.value("shipped_rerun_encode_calls")
    limits = {name: (len(rows) if name.startswith("t0") else len(shipped_want)) for name in hits}
    ok = all(isinstance(v, (int, float)) and not isinstance(v, bool) and v < limits[k] for k, v in hits.items())
    checks.check("unchanged_template_served_from_cache", ok, value={"encode_calls": hits},
                 bound=bounds["unchanged_template_served_from_cache"].format(probe=len(rows), shipped=len(shipped_want)),
                 source="reported")


def printed_lines(text):
    """The 'train:' line, the first-sample line and the step-0 line of a run's output (None if absent)."""
    found = {"train": None, "first_sample": None, "step0": None}
    for line in text.splitlines():
        line = line.rstrip()
        if line.startswith("train:") and found["train"] is None:
            found["train"] = line
        elif line.startswith("first sample") and found["first_sample"] is None:
            found["first_sample"] = line
        elif line.startswith("step") and found["step0"] is None:
            nums = numbers(line)
            if nums and nums[0] == 0:
                found["step0"] = line
    return found


def parse_first_sample(line):
    """'first sample (N tokens, M trained): <repr>' -> (N, M, text), or None."""
    if not line:
        return None
    head, sep, rest = line.partition(": ")
    counts = numbers(head)
    try:
        text = ast.literal_eval(rest)
    except (ValueError, SyntaxError):
        return None
    if not sep or len(counts) != 2 or not isinstance(text, str):
        return None
    return int(counts[0]), int(counts[1]), text


def readme_template_cache(run, measured, checks, *, copies, readme_seed):
    """The checks on what the README's command printed (``readme_seed``), as the user runs it."""
    lines = printed_lines(run["stdout"])
    ids, labels = copies.tokenize(copies.shipped_rows()[:1], copies.README_TEMPLATE)[0]
    want = (len(ids), sum(lab != IGNORE for lab in labels), copies.OwnTokenizer().decode(ids))
    got = parse_first_sample(lines["first_sample"])
    checks.check("readme_run_first_sample_is_current_template", got == want,
                 value={"printed": lines["first_sample"][:200] if lines["first_sample"] else None},
                 bound=f"first sample ({want[0]} tokens, {want[1]} trained): {want[2]!r}", source="readme_run")

    if readme_seed not in measured:
        raise Unreadable(f"no usable measurement for seed {readme_seed} to compare the README run with")
    mine = printed_lines(measured[readme_seed].value("readme_run_printed", str))
    mismatched = [k for k in ("first_sample",) if lines[k] is None or lines[k] != mine[k]]
    a, b = (numbers(lines["step0"] or ""), numbers(mine["step0"] or ""))
    if not (lines["step0"] and mine["step0"] and len(a) == len(b) == 3
            and all(abs(x - y) <= 2e-4 + 1e-12 for x, y in zip(a, b))):
        mismatched.append("step0")
    checks.check("readme_run_matches_verifier_run", not mismatched,
                 value={"mismatched": mismatched, "readme_run": {k: (v or "")[:120] for k, v in lines.items()},
                        "verifier_run": {k: (v or "")[:120] for k, v in mine.items()}},
                 bound="the first-sample and step-0 lines equal the measuring process's seed-0 run "
                       "(step-0 losses within 2 units of the last digit)", source="readme_run")
