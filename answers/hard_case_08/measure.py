"""hard_case_08, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-h08-6bd98f0e14e7693d

Per seed, records what the agent's data path hands to training, as artifacts the decider
compares with its own uncached tokenization (c08_common):

1. the README run: the workspace as shipped (its cache folder still holds the entry made with
   the old template; every file is put back as it was before each seed), `python train.py
   --config configs/sft.toml --set seed=S --set train.steps=3` run in-process; the token ids of the first training batches that reach
   the model (a global module forward pre-hook), and what it printed (the decider compares its
   first lines with what `python train.py`, run by the harness as the user runs it, printed);
2. the README configuration's data: train.load_training_data(train.make_config("configs/sft.toml",
   ["seed=S"])) on the shipped workspace, then again (a rerun, which must be served from the cache);
3. the probe, in a scratch folder with the verifier's own conversations: one template file
   edited in place, one field at a time by a same-length string, each followed by
   train.load_training_data (configs/sft.toml with data.train, data.template and data.cache_dir pointed at the
   scratch folder) with the same cache folder; reruns with the file untouched; and the
   first template restored with a 2001 modification time.
For every prepare_data call it counts the calls to chatlm.tokenizer.CharTokenizer.encode (a cache hit
re-tokenizes nothing; tokenizing the probe takes hundreds of calls).
"""

import io
import json
import os
import runpy
import shutil
import sys
import tempfile
from contextlib import redirect_stdout
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from h08_common import probe_rows, probe_steps  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

OLD_MTIME = 1_000_000_000  # 2001-09-09
README_RUN_STEPS = 3
CONFIG = "configs/sft.toml"
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


def measure(seed, rec):
    import torch
    from torch.nn.modules.module import register_module_forward_pre_hook

    snapshot_workspace()
    tokenizer = import_workspace_module("chatlm.tokenizer")
    CharTokenizer = require(tokenizer, "CharTokenizer")
    encode = require(CharTokenizer, "encode")
    train = import_workspace_module("train")
    make_config, prepare_data = require(train, "make_config", "load_training_data")

    def Config(seed, train_data=None, template=None, cache_dir=None):
        overrides = [f"seed={seed}"]
        if train_data is not None:
            overrides += [f"data.train={train_data}", f"data.template={template}", f"data.cache_dir={cache_dir}"]
        return make_config(CONFIG, overrides)

    calls = [0]

    def counting_encode(self, *args, **kwargs):
        calls[0] += 1
        return encode(self, *args, **kwargs)

    def prepared(cfg):
        calls[0] = 0
        result = prepare_data(cfg)
        examples = result.examples if hasattr(result, "examples") else result[1]
        return flat(examples), calls[0]

    CharTokenizer.encode = counting_encode
    try:
        # 1. the README run, from the shipped workspace
        restore_workspace()
        batches, depth = [], [0]

        def pre(module, args):
            if depth[0] == 0 and torch.is_grad_enabled() and len(batches) < README_RUN_STEPS + 1:
                x = args[0] if args else None
                if torch.is_tensor(x) and x.dim() == 2 and not x.is_floating_point():
                    batches.append(x.detach().clone())

        handle = register_module_forward_pre_hook(pre)
        argv = sys.argv
        sys.argv = ["train.py", "--config", CONFIG, "--set", f"seed={seed}", "--set", f"train.steps={README_RUN_STEPS}"]
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

        # 2. the README configuration's data, and a rerun
        restore_workspace()
        got, n = prepared(Config(seed=seed))
        rec.save("shipped", got)
        rec.put("shipped_encode_calls", n)
        got, n = prepared(Config(seed=seed))
        rec.save("shipped_rerun", got)
        rec.put("shipped_rerun_encode_calls", n)

        # 3. the probe: in-place single-field template edits with one cache folder
        with tempfile.TemporaryDirectory(prefix="h08-probe-") as tmp:
            tmp = Path(tmp)
            data = tmp / "chats.jsonl"
            data.write_text("".join(json.dumps(r) + "\n" for r in probe_rows(seed)))
            tpl = tmp / "chat.json"
            cfg = Config(seed=seed, train_data=str(data), template=str(tpl), cache_dir=str(tmp / "cache"))
            counts = {}
            for name, template, action, _ in probe_steps(seed):
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


measure_main(measure)
