"""wip_frontier_case_06, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-wip_frontier_case_06-211abad670f22b86

Two independent defects. Layer A (optimizer): optim.param_groups exempts from weight decay only parameters
whose names contain "bias", "LayerNorm.weight" or "embeddings.", names of another model; this model's norms
are ln_1 / ln_2 / ln_f and its embeddings tok_emb / pos_emb, so they all get the configured L2 penalty
(Adam's coupled weight_decay), which drags each rare word's embedding row to zero between its rare gradients:
the three small queues, recognised by rare words, are routed like the big ones. Layer B (text normalization):
textproc.normalize, called by tokenize for the vocabulary and every encoding, replaces every run of digits with
the one token [num]. Its reason is true (most numbers in the exports are ticket, order and account numbers and
amounts), but the login and app queues' error reports share their words and are told apart only by the status
or error code the customer copied (401 / 403 / 1120 ... against 500 / 502 / 4031 ...): masked, the two
queues' error reports are the same token sequence. Every run is the README's
`python train.py --config configs/router.toml` at train.seed = s. Checks per seed:

- reported `readme_config_trains`, `norms_and_embeddings_not_decayed`, `matrices_keep_their_decay` (layer A's
  mechanism, by module type, and no decay-off);
- recomputed from the predictions against the validation export regenerated here (make_data.py):
  `every_validation_ticket_predicted`, `rare_queues_routed` (recall >= 0.80 on privacy and accessibility:
  layer A), `error_reports_routed` (>= 24 of the 34 validation error reports of the two queues routed to their
  queue; A alone 11-14, gold 29-32), `macro_f1` (>= 0.92);
- seed 0 only, reported `codes_reach_the_model` (layer B's mechanism): twin web tickets, identical but for the
  code (each login code against each app code, four phrasings), read as a validation split through the
  agent's dataset.load_splits: every login twin's token ids differ from every app twin's. Masking every number
  fails it; keeping short codes or numbers after a code word, or dropping the masking, passes; re-weighting,
  thresholds or a bigger model leave it failing.

Then, on what the README's own command printed: `readme_run_completes`, `readme_run_matches_measured_report`,
`readme_run_meets_the_target` (printed macro-F1 >= 0.92).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.decay_groups import decide_training, readme_checks  # noqa: E402

from make_data import is_error_report, split_index, val_tickets  # noqa: E402
from verifylib import decide_main  # noqa: E402

SETTINGS = {
    "queues": ["account_access", "billing", "shipping", "returns", "technical",
               "privacy_request", "accessibility", "fraud_report"],
    "rare": ["privacy_request", "accessibility"],
    "min_matrix_decay": 0.005,
    "min_rare_recall": 0.80,
    "min_macro_f1": 0.92,
}
RECORDS = val_tickets()
OFFSET = split_index()
ERROR_REPORTS = [r for k, r in enumerate(RECORDS) if is_error_report(OFFSET + k, r["queue"])]
MIN_ERROR_REPORTS = 24


def decide(seed, m, checks):
    decide_training(seed, m, checks, SETTINGS, RECORDS)
    pred = {i: q for i, q in m.value("predictions", list)}
    right = sum(pred.get(r["id"]) == r["queue"] for r in ERROR_REPORTS)
    checks.check("error_reports_routed", right >= MIN_ERROR_REPORTS, value=right,
                 bound=f">= {MIN_ERROR_REPORTS} of the {len(ERROR_REPORTS)} validation error reports of the login "
                       "and app queues routed to their queue (recomputed against the regenerated validation export)",
                 limit=MIN_ERROR_REPORTS, sense=">")
    if seed != 0:
        return
    rows = {i: tuple(ids) for i, ids in m.value("twins", list)}
    pairs = same = 0
    for i, a in rows.items():
        for j, b in rows.items():
            if i.split("-")[0] == j.split("-")[0] and "-acco-" in i and "-tech-" in j:
                pairs += 1
                same += a == b
    checks.check("codes_reach_the_model", pairs == 4 * 5 * 5 and same == 0,
                 value={"twins": len(rows), "pairs": pairs, "identical": same},
                 bound="twin tickets that differ only in a login code against an app code reach the model as "
                       "different token ids (all 100 pairs)", source="reported")


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
