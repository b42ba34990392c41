"""frontier_case_06, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_06-211abad670f22b86

Two independent defects. Layer A (optimizer): optim.param_groups exempts from weight decay only parameters
whose names contain "bias", "LayerNorm.weight" or "embeddings.", names of another model; this model's norms
are ln_1 / ln_2 / ln_f and its embeddings tok_emb / pos_emb, so they all get the configured L2 penalty
(Adam's coupled weight_decay, 0.015), which drags each rare word's embedding row to zero between its rare
gradients: the three small queues, recognised by rare words, are routed like the big ones. Layer B (per-ticket
loss weights): dataset.load_splits computes the recency weights (halving every 12 days of age) over the
training rows in export order (oldest first), but TicketSet has already re-ordered its rows longest first, so
weight i lands on the i-th LONGEST ticket: the longest tickets get the oldest tickets' weights (~0.01 of the
mean) and the newest weights go to the shortest tickets. The longest tickets are, in this data, mostly the
other queues' tickets that also talk at length about a delivery (three shipping words, two of their own
queue's); trained at ~1% weight, the model routes them by their majority of delivery words to shipping. Every run is the README's
`python train.py --config configs/router.toml` at train.seed = s. Checks per seed:

- reported `readme_config_trains`: train.run returns the model, and optimizer steps ran;
- reported `norms_and_embeddings_not_decayed`: every nn.Embedding and normalization parameter is in an
  optimizer group with weight_decay 0 (layer A's mechanism; classified by module type, not by name);
- reported `matrices_keep_their_decay`: every nn.Linear weight keeps weight_decay >= 0.01 (no decay at all
  is not the fix);
- recomputed `every_validation_ticket_predicted`, and from the returned predictions against the validation
  export regenerated here (make_data.py): `rare_queues_routed` (recall >= 0.80 on each small queue; broken
  0.00 on some queue every seed, A alone >= 0.97), `mixed_tickets_routed` (>= 0.76 accuracy on the 39
  validation tickets of other queues whose customer text mentions a shipping keyword; A alone 0.615-0.667,
  gold 0.846-0.949), `shipping_precision` (>= 0.95; broken seed 0 0.928, A alone 0.944-0.958, gold
  0.968-0.996) and `macro_f1` (>= 0.93).

Then, on what the README's own command printed (source readme_run; code fixed only under the verifier
fails): `readme_run_completes`, `readme_run_matches_measured_report` (printed accuracy, macro-F1 and every
queue's recall equal the measured seed-0 run's within 2 units of the last digit) and
`readme_run_meets_the_target` (printed macro-F1 >= 0.93).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.decay_groups import decide_training, readme_checks  # noqa: E402
from make_data import SHIPPING_WORDS, customer_words, val_tickets  # noqa: E402
from verifylib import decide_main  # noqa: E402

SETTINGS = {
    "queues": ["account_access", "billing", "shipping", "returns", "technical",
               "privacy_request", "accessibility", "fraud_report"],
    "rare": ["privacy_request", "accessibility", "fraud_report"],
    "min_matrix_decay": 0.01,
    "min_rare_recall": 0.80,
    "mixed_into": "shipping",
    "min_mixed_accuracy": 0.76,
    "min_mixed_into_precision": 0.95,
    "min_macro_f1": 0.93,
}
RECORDS = val_tickets()
SETTINGS["mixed_ids"] = {r["id"] for r in RECORDS
                         if r["queue"] != "shipping" and SHIPPING_WORDS & set(customer_words(r))}


def decide(seed, m, checks):
    decide_training(seed, m, checks, SETTINGS, RECORDS)


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
