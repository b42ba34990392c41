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

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
import h08_common  # noqa: E402
from families.stale_template_cache import measure_template_cache  # noqa: E402
from verifylib import measure_main, require  # noqa: E402

README_RUN_STEPS = 3
CONFIG = "configs/sft.toml"


def data_entry_points(train):
    make_config, prepare_data = require(train, "make_config", "load_training_data")

    def Config(seed, train_data=None, template=None, cache_dir=None):
        overrides = [f"seed={seed}"]
        if train_data is not None:
            overrides += [f"data.train={train_data}", f"data.template={template}", f"data.cache_dir={cache_dir}"]
        return make_config(CONFIG, overrides)

    return Config, prepare_data


def examples_of(result):
    return result.examples if hasattr(result, "examples") else result[1]


def measure(seed, rec):
    measure_template_cache(seed, rec, tokenizer_module="chatlm.tokenizer", data_entry_points=data_entry_points,
                           readme_argv=["train.py", "--config", CONFIG, "--set", f"seed={seed}",
                                        "--set", f"train.steps={README_RUN_STEPS}"],
                           readme_run_steps=README_RUN_STEPS, copies=h08_common, probe_prefix="h08-probe-",
                           examples_of=examples_of)


measure_main(measure)
