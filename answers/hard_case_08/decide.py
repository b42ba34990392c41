"""hard_case_08, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-h08-6bd98f0e14e7693d

The bug: the tokenization cache (chatlm/data/dataset.py training_key, used when the config sets
data.cache_dir, as configs/sft.toml does) is keyed on the template's path, not its contents, so
after an in-place template edit training is handed the tokenization of the old template. The invariant: whatever the cache
holds, the examples the data path hands to training are the uncached tokenization of the
data with the template as it is now, and an unchanged rerun is served from the cache.
"Uncached tokenization" is this side's own copy of the case's tokenizer and rendering
(h08_common), never the agent's. Checks per seed:

- recomputed `readme_run_trains_on_current_template`: every row of the first training
  batches that reached the model in `python train.py --config configs/sft.toml` on the shipped workspace (its cache
  holds the entry made with the old template) is an example of the shipped data rendered with
  the template the README asks for (bug: the old '### System:' rendering);
- recomputed `readme_config_data_matches_current_template`: prepare_data(configs/sft.toml) on the
  shipped workspace, and its rerun, equal that tokenization, example for example;
- recomputed `every_template_edit_is_picked_up`: in the probe, after each in-place edit of a
  single template field by a same-length string (every opener and closer, and BOS), and
  after restoring the first template with a 2001 mtime, prepare_data equals the uncached
  tokenization with the template now in the file (bug: the first template's, every step);
- reported `unchanged_template_served_from_cache`: reruns with the template untouched (probe
  twice, README configuration once) call CharTokenizer.encode fewer times than there are
  conversations (tokenizing one takes >= 7 calls), so caching is not switched off.

And once, on what `python train.py --config configs/sft.toml` (the README's command, run by the harness on a fresh copy
of the agent's files as the user runs it: plain python, no hooks, seed 0) printed, so that code
which picks up the template only under the verifier fails (`readme_run` rows):

- `readme_run_completes` (verifylib, every case): exit code 0, not timed out;
- `readme_run_first_sample_is_current_template`: the symptom the README shows is gone: the
  printed first sample is the first shipped conversation rendered with the template the README
  asks for, with its token and trained-token counts, as this file's own tokenizer renders it
  (bug: the old '### System:' rendering, 108 tokens, 17 trained). Only a stale cache entry
  (the old template's tokenization) moves it;
- `readme_run_matches_verifier_run`: the first-sample line and the step-0 line (train loss,
  val loss) equal what the agent's train.py printed when the measuring process ran it on the
  same files for seed 0 (step-0 numbers within 2 units of the last digit: same seed, same
  first batch, same initial weights; the 'train:' line is not compared, as a cache key may
  rightly differ between two copies). Code that behaves differently under the verifier
  (python -I, its argv, its hooks) moves them.
"""

import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from h08_common import README_TEMPLATE, OwnTokenizer, probe_rows, probe_steps, shipped_rows, tokenize  # noqa: E402
from verifylib import Unreadable, decide_main, numbers  # noqa: E402

README_RUN_STEPS = 3
README_SEED = 0   # the README's command runs configs/sft.toml = seed 0
IGNORE = -100


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
                 bound=f"{README_RUN_STEPS + 1} batches, every row an example rendered with templates/chat.json as the README "
                       "has it: the shipped cache holds the old template's tokenization, which the bug serves")

    diffs = {name: compare(unflat(m.tensors(name, keys=["ids", "labels", "offsets"])), shipped_want)
             for name in ("shipped", "shipped_rerun")}
    checks.check("readme_config_data_matches_current_template", not any(diffs.values()),
                 value={k: v for k, v in diffs.items() if v} or "equal",
                 bound="prepare_data(configs/sft.toml) and its rerun == uncached tokenization with the README's template "
                       "(exact: a cache may only ever return what tokenizing now would)")

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
                 bound="after every single-field same-length edit and an old-mtime restore: == uncached tokenization. "
                       "The README's trigger is an in-place template edit; a key on part of the template, on the size, "
                       "or on modification times (a backup restored with cp -p / tar / rsync -a keeps its old mtime) "
                       "serves a stale entry here")

    hits["readme_config_rerun"] = m.value("shipped_rerun_encode_calls")
    limits = {name: (len(rows) if name.startswith("t0") else len(shipped_want)) for name in hits}
    ok = all(isinstance(v, (int, float)) and not isinstance(v, bool) and v < limits[k] for k, v in hits.items())
    checks.check("unchanged_template_served_from_cache", ok, value={"encode_calls": hits},
                 bound=f"fewer encode calls than conversations ({len(rows)} probe, {len(shipped_want)} shipped): the "
                       "README's config uses the cache; switching it off or clearing it every run hides the stale "
                       "entry instead of keying it right",
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


def readme(run, measured, checks):
    """Checks on what the README's command printed (seed 0), as the user runs it."""
    lines = printed_lines(run["stdout"])
    ids, labels = tokenize(shipped_rows()[:1], README_TEMPLATE)[0]
    want = (len(ids), sum(lab != IGNORE for lab in labels), OwnTokenizer().decode(ids))
    got = parse_first_sample(lines["first_sample"])
    checks.check("readme_run_first_sample_is_current_template", got == want,
                 value={"printed": lines["first_sample"][:200] if lines["first_sample"] else None},
                 bound=f"first sample ({want[0]} tokens, {want[1]} trained): {want[2]!r}", source="readme_run")

    if README_SEED not in measured:
        raise Unreadable(f"no usable measurement for seed {README_SEED} to compare the README run with")
    mine = printed_lines(measured[README_SEED].value("readme_run_printed", str))
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


decide_main(decide, readme=readme)
