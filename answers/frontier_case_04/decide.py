"""frontier_case_04, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_04-7f1404a1a0ea4438

Two independent defects. Layer A (packing + model): pack.py concatenates the training bouts into rows of 64
tokens and returns only (tokens, targets); SongFormer builds a plain causal mask and positions 0..63 from
the row length, so every bout attends to the unrelated bouts packed before it in its row (and its positions
start wherever it landed), while validation scores each bout alone. Layer B (an order mismatch between
sessionlog.py and corpus.py): SessionLog keeps the log's rows sorted by (date, booth, bird), and
corpus.song_contexts reads each bout's female-present flag at position session - 1 of its booth's rows; booth
A runs four sessions a day, so the bird tie-break reorders them and about a third of booth A's bouts get
another session's directed/undirected context token. Booth A holds only the juveniles. Every run is the
README's `python train.py` at train.seed = s (11 epochs of 24 batches).
Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- reported `documents_see_only_themselves`: altering the syllables packed before a row's last bout changes
  the trained model's outputs on that bout by at most 1e-4 (broken: order 1; any correct block mask,
  per-bout rows or boundary-aware attention: 0 up to float reordering);
- reported `val_accuracy` >= 0.712 and `cohort_accuracy` (juveniles) >= 0.655 on the final printed lines
  (broken 0.551-0.561 and 0.503-0.520; A fixed alone 0.690-0.695 and 0.621-0.629; B fixed alone
  0.619-0.643 and 0.596-0.619; both fixed 0.727-0.735 and 0.679-0.687).

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final lines equal the seed-0 run measured
here, within 2e-4) and `readme_run_val_acc` (>= 0.712).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.packed_document_mask import decide_outcome, readme_checks  # noqa: E402
from verifylib import decide_main  # noqa: E402

SETTINGS = {
    "change_tol": 1e-4, "min_val_acc": 0.712, "cohort_label": "juveniles", "min_cohort_acc": 0.655,
    "print_tol": 2e-4,
}


def decide(seed, m, checks):
    decide_outcome(m, checks, SETTINGS)


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
