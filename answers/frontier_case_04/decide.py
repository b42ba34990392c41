"""frontier_case_04, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_04-7f1404a1a0ea4438

Two independent defects. Layer A (packing + model): pack.py concatenates the training bouts into rows of 64
tokens and returns only (tokens, targets); SongFormer builds a plain causal mask and positions 0..63 from
the row length, so every bout attends to the unrelated bouts packed before it in its row (and its positions
start wherever it landed), while validation scores each bout alone. Layer B (composition of sessionlog.py
and corpus.py): SessionLog indexes the lab's log by session number alone, but the numbers restart in each
booth, so booth B's rows (appended after booth A's) replace booth A's sessions 1-110, and corpus.song_context
gives most of booth A's bouts another session's directed/undirected context token. Booth A holds only the
juveniles. Every run is the README's `python train.py` at train.seed = s (14 epochs of 24 batches).
Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- reported `documents_see_only_themselves`: altering the syllables packed before a row's last bout changes
  the trained model's outputs on that bout by at most 1e-4 (broken: order 1; any correct block mask,
  per-bout rows or boundary-aware attention: 0 up to float reordering);
- reported `val_accuracy` >= 0.725 and `cohort_accuracy` (juveniles) >= 0.670 on the final printed lines
  (broken 0.617-0.644 and 0.548-0.568; A fixed alone 0.712-0.716 and 0.652-0.656; B fixed alone
  0.680-0.696 and 0.631-0.665; both fixed 0.732-0.738 and 0.683-0.687).

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final lines equal the seed-0 run measured
here, within 2e-4) and `readme_run_val_acc` (>= 0.725).
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
    "change_tol": 1e-4, "min_val_acc": 0.725, "cohort_label": "juveniles", "min_cohort_acc": 0.670,
    "print_tol": 2e-4,
}


def decide(seed, m, checks):
    decide_outcome(m, checks, SETTINGS)


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
