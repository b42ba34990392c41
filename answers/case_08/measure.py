"""case_08, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-c08-42b126d429b1c487

Per seed, records what the agent's data path hands to training, as artifacts the decider
compares with its own uncached tokenization (c08_common):

1. the README run: the workspace as shipped (its cache folder still holds the entry made with
   the old template; every file is put back as it was before each seed), `python train.py
   --seed=S --steps=3` run in-process; the token ids of the first training batches that reach
   the model (a global module forward pre-hook), and what it printed (the decider compares its
   first lines with what `python train.py`, run by the harness as the user runs it, printed);
2. the README configuration's data: train.prepare_data(train.Config(seed=S)) on the shipped
   workspace, then again (a rerun, which must be served from the cache);
3. the probe, in a scratch folder with the verifier's own conversations: one template file
   edited in place, one field at a time by a same-length string, each followed by
   train.prepare_data with the same cache folder; reruns with the file untouched; and the
   first template restored with a 2001 modification time.
For every prepare_data call it counts the calls to tokenizer.CharTokenizer.encode (a cache hit
re-tokenizes nothing; tokenizing the probe takes hundreds of calls).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
import c08_common  # noqa: E402
from families.stale_template_cache import measure_template_cache  # noqa: E402
from verifylib import measure_main, require  # noqa: E402

README_RUN_STEPS = 3


def data_entry_points(train):
    return require(train, "Config", "prepare_data")


def measure(seed, rec):
    measure_template_cache(seed, rec, tokenizer_module="tokenizer", data_entry_points=data_entry_points,
                           readme_argv=["train.py", f"--seed={seed}", f"--steps={README_RUN_STEPS}"],
                           readme_run_steps=README_RUN_STEPS, copies=c08_common, probe_prefix="c08-probe-")


measure_main(measure)
