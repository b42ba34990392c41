"""frontier_case_04, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_04-7f1404a1a0ea4438

Two independent defects. Layer A (packing + model): pack.py concatenates the training bouts into rows of 64
tokens and returns only (tokens, targets); SongFormer builds a plain causal mask and positions 0..63 from
the row length, so every bout attends to the unrelated bouts packed before it in its row (and its positions
start wherever it landed), while validation scores each bout alone. Layer B (corpus.relative_band_power, called by
corpus.syllable_features, the examples' feature stage): each syllable's six band energies reach the model
only as log10 shares of the syllable's own total (relative band power, documented as independent of the
microphone distance, which moves every session's levels by 20-30 dB), so the syllable's level is gone from
the inputs. e and f share their contexts and nearly their spectral shape (every other type's shape is its own), f sung
about 4 dB louder than e and 5 ms longer; with the level erased they are told apart by length and a slight
shape difference, and the model calls about 30% of the held-out e/f the other one (about 24% with the level).
exports.read_booth's short-note threshold (55 ms in code, 60 ms in its docstring) is a real minor defect outside
the key: neither required nor penalised. Every run is the README's `python train.py` at
train.seed = s (11 epochs of 24 batches).
Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- reported `documents_see_only_themselves`: altering the syllables packed before a row's last bout changes
  the trained model's outputs on that bout by at most 1e-4 (broken: order 1; any correct block mask,
  per-bout rows or boundary-aware attention: 0 up to float reordering);
- reported `level_reaches_inputs`: the syllable's level (10 log10 of its summed band power, recomputed from
  the raw exports) against its bout's mean, regressed linearly on the syllable's features of the examples
  train.load_corpus builds (also against the bout's mean), pooled over >= 20,000 matched syllables:
  R^2 >= 0.80 (broken, A only and every fix that keeps the shares alone 0.09 (iteration 6: 0.048); a per-type
  loudness looked up by label 0.088 in iteration 6; the level against the bout's median or mean, the log total beside the shares: 1.0; the
  band levels as measured 0.997);
- reported `features_ignore_labels`: relabelling every second e/f row of the exports (e as f, f as e) changes
  no feature by more than 1e-6 (a stage that reads the labels it predicts is a leak; label-built loudness 0.13);
- reported `val_accuracy` >= 0.66 (eight points under the README's 0.74: a correct fix that feeds the absolute
  band levels reaches 0.698 / 0.679 on seeds 0 / 1: the session gain swamps its shape; broken 0.704-0.717) and `cohort_accuracy` (juveniles) >= 0.65 on the
  final printed lines (a floor; the mechanism checks carry layer B, whose effect on val acc is within the
  seeds' spread). Effect table in NOTES.md.

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final lines equal the seed-0 run measured
here, within 2e-4) and `readme_run_val_acc` (>= 0.66).
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
    "change_tol": 1e-4, "min_val_acc": 0.66, "cohort_label": "juveniles", "min_cohort_acc": 0.65,
    "print_tol": 2e-4, "min_level_r2": 0.80, "min_matched": 20_000, "max_label_change": 1e-6,
}


def decide(seed, m, checks):
    r2 = m.value("level_r2", float)
    n = m.value("syllables_matched", int)
    checks.check("level_reaches_inputs", r2 >= SETTINGS["min_level_r2"] and n >= SETTINGS["min_matched"],
                 value=r2, bound=f">= {SETTINGS['min_level_r2']} (R^2 of each syllable's level against its bout's "
                                 f"mean on its features; {n} syllables matched, >= {SETTINGS['min_matched']})",
                 source="reported", limit=SETTINGS["min_level_r2"], sense=">")
    change = m.value("label_swap_feature_change", float)
    checks.check("features_ignore_labels", change <= SETTINGS["max_label_change"], value=change,
                 bound=f"<= {SETTINGS['max_label_change']} (largest feature change when every second e/f label "
                       f"of the exports is swapped)",
                 source="reported", limit=SETTINGS["max_label_change"], sense="<")
    decide_outcome(m, checks, SETTINGS)


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
