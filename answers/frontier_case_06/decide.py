"""frontier_case_06, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_06-211abad670f22b86

Two independent defects. Layer A (optimizer): optim.param_groups exempts from weight decay only parameters
whose names contain "bias", "LayerNorm.weight" or "embeddings.", names of another model; this model's norms
are ln_1 / ln_2 / ln_f and its embeddings tok_emb / pos_emb, so they all get the configured L2 penalty
(Adam's coupled weight_decay), which drags each rare word's embedding row to zero between its rare gradients:
the three small queues, recognised by rare words, are routed like the big ones. Layer B (the ticket texts):
tickets.read_export keeps the customer's own text as a numpy string column, whose fixed width is the longest
customer text of the export; dataset.read_tickets writes each email's "subject ...\n" + body back into that
column, and numpy cuts each to the column's width. Only the emails whose body is near the longest are cut: the
fraud reports that forward a notice and ask about it at the end lose exactly their fraud keyword. Every run is
the README's `python train.py --config configs/router.toml` at train.seed = s. Checks per seed:

- reported `readme_config_trains`, `norms_and_embeddings_not_decayed`, `matrices_keep_their_decay` (layer A's
  mechanism, by module type, and no decay-off);
- recomputed from the predictions against the validation export regenerated here (make_data.py):
  `every_validation_ticket_predicted`, `rare_queues_routed` (recall >= 0.80 on privacy and accessibility:
  layer A), `quoted_fraud_routed` (>= 5 of the 8 validation fraud emails that forward a notice; A alone 0-2,
  gold 6-8), `macro_f1` (>= 0.85);
- seed 0 only, reported `texts_reach_the_model_whole` (layer B's mechanism): for every training and validation
  ticket, the number of real tokens the model receives equals the token count of the full raw text (email:
  "subject " + subject + newline + body; web message; chat customer turns), capped at max_len, recomputed from
  the regenerated exports with the README's tokenizer pattern; a fix that cuts differently, drops or
  re-weights the quoted emails fails it.

Then, on what the README's own command printed: `readme_run_completes`, `readme_run_matches_measured_report`,
`readme_run_meets_the_target` (printed macro-F1 >= 0.85).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.decay_groups import decide_training, readme_checks  # noqa: E402
import re  # noqa: E402

from make_data import all_tickets, split_index, val_tickets  # noqa: E402
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
QUOTED = [r for r in RECORDS if r["queue"] == "fraud_report" and r["channel"] == "email" and "\n" in r["body"]]
MIN_QUOTED = 6
TOKEN = re.compile(r"\[[a-z]+\]|[a-z0-9][a-z0-9'\-]*")


def full_text(row):
    if row["channel"] == "email":
        return f"subject {row['subject'].strip()}\n{row['body'].strip()}"
    if row["channel"] == "web":
        return row["message"].strip()
    return "\n".join(t["text"].strip() for t in row["turns"] if t["speaker"] == "customer" and t["text"].strip())


def token_counts(max_len):
    return {r["id"]: min(len(TOKEN.findall(full_text(r).lower())), max_len) for r in all_tickets()}


def decide(seed, m, checks):
    decide_training(seed, m, checks, SETTINGS, RECORDS)
    pred = {i: q for i, q in m.value("predictions", list)}
    right = sum(pred.get(r["id"]) == "fraud_report" for r in QUOTED)
    checks.check("quoted_fraud_routed", right >= MIN_QUOTED, value=right,
                 bound=f">= {MIN_QUOTED} of the {len(QUOTED)} validation fraud emails that forward a notice routed "
                       "to fraud_report (recomputed against the regenerated validation export)",
                 limit=MIN_QUOTED, sense=">")
    if seed != 0:
        return
    max_len = m.value("max_len", int)
    want = token_counts(max_len)
    got = {}
    for split in ("train", "val"):
        for i, n in m.value(f"tokens_{split}", list):
            got[i] = n
    bad = sorted(i for i in want if got.get(i) != want[i])
    checks.check("texts_reach_the_model_whole", max_len >= 64 and not bad,
                 value={"tickets": len(want), "seen": len(got), "differ": len(bad), "e.g.": bad[:8]},
                 bound="every ticket's real-token count equals the full raw text's (recomputed from the regenerated "
                       "exports), with max_len >= 64", source="reported")


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
