"""case_08, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-c08-42b126d429b1c487

The bug: the tokenization cache is keyed without the chat template, so after a template edit
training is handed the tokenization of the old template. The invariant: whatever the cache
holds, the examples the data path hands to training are the uncached tokenization of the
data with the template as it is now, and an unchanged rerun is served from the cache.
"Uncached tokenization" is this side's own copy of the case's tokenizer and rendering
(c08_common), never the agent's. Checks per seed:

- recomputed `readme_run_trains_on_current_template`: every row of the first training
  batches that reached the model in `python train.py` on the shipped workspace (its cache
  holds the entry made with the old template) is an example of the shipped data rendered with
  the template the README asks for (bug: the old '### System:' rendering);
- recomputed `readme_config_data_matches_current_template`: train.prepare_data(Config()) on the
  shipped workspace, and its rerun, equal that tokenization, example for example;
- recomputed `every_template_edit_is_picked_up`: in the probe, after each in-place edit of a
  single template field by a same-length string (every opener and closer, and BOS), and
  after restoring the first template with a 2001 mtime, prepare_data equals the uncached
  tokenization with the template now in the file (bug: the first template's, every step);
- reported `unchanged_template_served_from_cache`: reruns with the template untouched (probe
  twice, README configuration once) call CharTokenizer.encode fewer times than there are
  conversations (tokenizing one takes >= 7 calls), so caching is not switched off.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from c08_common import README_TEMPLATE, OwnTokenizer, probe_rows, probe_steps, shipped_rows, tokenize  # noqa: E402
from verifylib import Unreadable, decide_main  # noqa: E402

README_RUN_STEPS = 3


def unflat(t):
    ids, labels, offsets = t["ids"].tolist(), t["labels"].tolist(), t["offsets"].tolist()
    if any(o < 0 for o in offsets) or offsets != sorted(offsets) or offsets[-1] != len(ids) or len(ids) != len(labels):
        raise Unreadable("prepared examples are malformed (ids and labels of different lengths)")
    return [(ids[a:b], labels[a:b]) for a, b in zip(offsets[:-1], offsets[1:])]


def compare(got, want):
    """None when equal, else a short description of the first difference."""
    tok = OwnTokenizer()
    if len(got) != len(want):
        return f"{len(got)} examples, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            part = "ids" if g[0] != w[0] else "labels"
            return {"example": i, "differs_in": part, "got": tok.decode(g[0])[:70], "expected": tok.decode(w[0])[:70]}
    return None


def decide(seed, m, checks):
    shipped_want = tokenize(shipped_rows(), README_TEMPLATE)
    pad = OwnTokenizer().pad_id

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
                first_bad = first_bad or OwnTokenizer().decode(row[:n])[:70]
    checks.check("readme_run_trains_on_current_template", n_batches == README_RUN_STEPS + 1 and rows > 0 and bad_rows == 0,
                 value={"batches": n_batches, "rows": rows, "rows_not_rendered_with_current_template": bad_rows,
                        "first_such_row": first_bad},
                 bound=f"{README_RUN_STEPS + 1} batches, every row an example rendered with templates/chat.json as the README has it")

    diffs = {name: compare(unflat(m.tensors(name, keys=["ids", "labels", "offsets"])), shipped_want)
             for name in ("shipped", "shipped_rerun")}
    checks.check("readme_config_data_matches_current_template", not any(diffs.values()),
                 value={k: v for k, v in diffs.items() if v} or "equal",
                 bound="prepare_data(Config()) and its rerun == uncached tokenization with the README's template")

    counts = m.value("probe_encode_calls", dict)
    rows = probe_rows(seed)
    failing, hits = {}, {}
    for name, template, action, must_hit in probe_steps(seed):
        d = compare(unflat(m.tensors(f"probe_{name}", keys=["ids", "labels", "offsets"])), tokenize(rows, template))
        if d:
            failing[name] = d
        if must_hit:
            hits[name] = counts.get(name)
    checks.check("every_template_edit_is_picked_up", not failing,
                 value={"failing_steps": sorted(failing), "first": next(iter(failing.values()), None)},
                 bound="after every single-field same-length edit and an old-mtime restore: == uncached tokenization")

    hits["readme_config_rerun"] = m.value("shipped_rerun_encode_calls")
    limits = {name: (len(rows) if name.startswith("t0") else len(shipped_want)) for name in hits}
    ok = all(isinstance(v, (int, float)) and not isinstance(v, bool) and v < limits[k] for k, v in hits.items())
    checks.check("unchanged_template_served_from_cache", ok, value={"encode_calls": hits},
                 bound=f"fewer encode calls than conversations ({len(rows)} probe, {len(shipped_want)} shipped)",
                 source="reported")


decide_main(decide)
