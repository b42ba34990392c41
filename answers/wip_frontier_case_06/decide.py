"""frontier_case_06, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_06-211abad670f22b86

Two independent defects. Layer A (optimizer): optim.param_groups exempts from weight decay only parameters
whose names contain "bias", "LayerNorm.weight" or "embeddings.", names of another model; this model's norms
are ln_1 / ln_2 / ln_f and its embeddings tok_emb / pos_emb, so they all get the configured L2 penalty
(Adam's coupled weight_decay), which drags each rare word's embedding row to zero between its rare gradients:
the three small queues, recognised by rare words, are routed like the big ones. Layer B (feature stage):
dataset.activity_features gives the model each customer's lifetime activity counters as shares of their own
total. Its reason is true (the totals span about four orders of magnitude, mostly the account's age), but the
total's level is what tells the login queue's customers (young accounts) from the app queue's (established
ones); both queues' short error reports share their words, so without the level the model can only guess.
Every run is the README's `python train.py --config configs/router.toml` at train.seed = s. Checks per seed:

- reported `readme_config_trains`, `norms_and_embeddings_not_decayed`, `matrices_keep_their_decay` (layer A);
- recomputed from the predictions against the validation export regenerated here (make_data.py):
  `every_validation_ticket_predicted`, `rare_queues_routed` (recall >= 0.70 on privacy and accessibility),
  `error_reports_routed` (>= 36 of the 60 validation error reports of the two queues routed to their queue;
  A alone 24-29, gold 44-47), `macro_f1` (>= 0.90, the README's target);
- recomputed `activity_level_reaches_the_model` (layer B's mechanism): the log10 activity total of each
  validation ticket, recomputed from the regenerated export, regressed (least squares, with intercept) on the
  non-text inputs the model received in its last validation pass gives R^2 >= 0.75 (shares alone: low);
- seed 0, reported `features_label_free`: the validation set's floating tensors are identical when the
  validation export's queues are permuted (a feature built from labels is a leak).

Then, on what the README's own command printed: `readme_run_completes`, `readme_run_matches_measured_report`,
`readme_run_meets_the_target` (printed macro-F1 >= 0.90).
"""

import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.decay_groups import decide_training, readme_checks  # noqa: E402

from make_data import is_error_report, split_index, val_tickets  # noqa: E402
from verifylib import decide_main, linear_fit_r2  # noqa: E402

SETTINGS = {
    "queues": ["account_access", "billing", "shipping", "returns", "technical",
               "privacy_request", "accessibility", "fraud_report"],
    "rare": ["privacy_request", "accessibility"],
    "min_matrix_decay": 0.005,
    "min_rare_recall": 0.70,
    "min_macro_f1": 0.90,
}
RECORDS = val_tickets()
OFFSET = split_index()
ERROR_REPORTS = [r for k, r in enumerate(RECORDS) if is_error_report(OFFSET + k, r["queue"])]
MIN_ERROR_REPORTS = 36
MIN_R2 = 0.75
LEVEL = {r["id"]: math.log10(1.0 + sum(r["activity"].values())) for r in RECORDS}


def level_r2(ids, x):
    import numpy as np

    return linear_fit_r2(x, np.array([LEVEL[i] for i in ids]))


def decide(seed, m, checks):
    decide_training(seed, m, checks, SETTINGS, RECORDS)
    preds = m.value("predictions", list)
    pred = {i: q for i, q in preds}
    right = sum(pred.get(r["id"]) == r["queue"] for r in ERROR_REPORTS)
    checks.check("error_reports_routed", right >= MIN_ERROR_REPORTS, value=right,
                 bound=f">= {MIN_ERROR_REPORTS} of the {len(ERROR_REPORTS)} validation error reports of the login "
                       "and app queues routed to their queue (recomputed against the regenerated validation export)",
                 limit=MIN_ERROR_REPORTS, sense=">")
    x = m.tensors("side_inputs", ["x"])["x"]
    ids = [i for i, _ in preds]
    ok_shape = x.dim() == 2 and x.shape[0] == len(ids) == len(RECORDS) and x.shape[1] >= 1 \
        and all(i in LEVEL for i in ids) and bool(x.isfinite().all())
    r2 = level_r2(ids, x.numpy()) if ok_shape else 0.0
    checks.check("activity_level_reaches_the_model", ok_shape and r2 >= MIN_R2, value=round(r2, 4),
                 bound=f"R^2 >= {MIN_R2} of each validation ticket's log10 activity total (recomputed from the "
                       "regenerated export) regressed on the non-text inputs of the model's last validation pass",
                 limit=MIN_R2, sense=">")
    if seed != 0:
        return
    lf = m.value("features_label_free", dict)
    checks.check("features_label_free", bool(lf.get("identical")) and bool(lf.get("tensors")),
                 value=lf, bound="the validation set's floating tensors are unchanged when the validation "
                                 "export's queues are permuted", source="reported")


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
