"""wip_frontier_case_04, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-wip_frontier_case_04-7f1404a1a0ea4438

Two independent defects. Layer A (packing + model): pack.py concatenates the training bouts into rows of 64
tokens and returns only (tokens, targets); SongFormer builds a plain causal mask and positions 0..63 from
the row length, so every bout attends to the unrelated bouts packed before it in its row (and its positions
start wherever it landed), while validation scores each bout alone. Layer B (a representation meeting
the data's magnitude): exports.read_booth reads each bout's syllable rows (onset and offset, int64 sample
indices at 48 kHz from the start of the day-long recording, 0.9e9-3.7e9, and the segmenter's float
measurements) into one tensor with torch.tensor(rows), float32 by default, so the onsets and offsets are
rounded by 64-256 samples; corpus.syllable_features takes the lengths and gaps from that tensor, off by
several ms, and the two syllable types told apart by length alone (e 52 ms, f 58 ms) are confused on every
bird and split. Every run is the README's `python train.py` at
train.seed = s (11 epochs of 24 batches).
Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- reported `documents_see_only_themselves`: altering the syllables packed before a row's last bout changes
  the trained model's outputs on that bout by at most 1e-4 (broken: order 1; any correct block mask,
  per-bout rows or boundary-aware attention: 0 up to float reordering);
- reported `timing_matches_export`: at least 0.99 of the syllables of the examples train.load_corpus builds
  carry a length and gap (Example.feats, first two columns) within 0.5 ms of a float64 recomputation from
  the raw integer sample indices (broken and A only 0.118; float64 table, NumPy float64, times relative to
  the bout's first onset: 1.0; a float64 cast in the features step after loading 0.115);
- reported `val_accuracy` >= 0.70 (the README's target) and `cohort_accuracy` (juveniles) >= 0.665 on the
  final printed lines (broken 0.614-0.642; B fixed alone 0.629-0.649; A fixed alone 0.726-0.738; both fixed
  0.737-0.741). The outcome does not separate A only from gold (B moves val acc by 0.3-1.1 points); the
  mechanism check does.

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final lines equal the seed-0 run measured
here, within 2e-4) and `readme_run_val_acc` (>= 0.70).
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
    "change_tol": 1e-4, "min_val_acc": 0.70, "cohort_label": "juveniles", "min_cohort_acc": 0.665,
    "print_tol": 2e-4, "min_timing_match": 0.99,
}


def decide(seed, m, checks):
    share = m.value("timing_within_half_ms", float)
    n = m.value("syllables_compared", int)
    checks.check("timing_matches_export", share >= SETTINGS["min_timing_match"], value=share,
                 bound=f">= {SETTINGS['min_timing_match']} (share of the {n} syllables whose length and gap lie "
                       f"within 0.5 ms of a float64 recomputation from the raw sample indices)",
                 source="reported", limit=SETTINGS["min_timing_match"], sense=">")
    decide_outcome(m, checks, SETTINGS)


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
