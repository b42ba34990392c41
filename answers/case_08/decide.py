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

And once, on what `python train.py` (the README's command, run by the harness on a fresh copy
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

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
import c08_common  # noqa: E402
from families.stale_template_cache import decide_template_cache, readme_template_cache  # noqa: E402
from verifylib import decide_main  # noqa: E402

README_RUN_STEPS = 3
README_SEED = 0   # `python train.py` runs Config() = seed 0
BOUNDS = {
    "readme_run_trains_on_current_template":
        "{batches} batches, every row an example rendered with templates/chat.json as the README has it",
    "readme_config_data_matches_current_template":
        "prepare_data(Config()) and its rerun == uncached tokenization with the README's template",
    "every_template_edit_is_picked_up":
        "after every single-field same-length edit and an old-mtime restore: == uncached tokenization",
    "unchanged_template_served_from_cache": "fewer encode calls than conversations ({probe} probe, {shipped} shipped)",
}


def decide(seed, m, checks):
    decide_template_cache(seed, m, checks, copies=c08_common, readme_run_steps=README_RUN_STEPS, bounds=BOUNDS)


def readme(run, measured, checks):
    """Checks on what `python train.py` printed (seed 0), as the user runs it."""
    readme_template_cache(run, measured, checks, copies=c08_common, readme_seed=README_SEED)


decide_main(decide, readme=readme)
