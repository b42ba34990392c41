"""hard_case_02, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-h02-9d3f71c2a6e05b84

The bug: the left-padding branch of the collator (sft/data/collate.py `_left`, which
configs/sampling.toml selects with padding_side = "left") takes `attention_mask.bool()` (true on
real tokens) as the padding condition, so `masked_fill(filler | (reply_mask == 0), -100)` masks
every position: no label is supervised, the loss is 0/1 = 0 with zero gradients and nothing
trains. Checks per seed, at the README's settings (`--config configs/sampling.toml`, seed set):

- recomputed: the labels supervise exactly the assistant's reply tokens. From the input ids of
  every training step the decider marks the reply tokens itself (after an <|assistant|> header,
  up to and including the closing <|end|>; never padding), on either padding side, and requires
  the target tensor the cross-entropy received at that step to equal ids[:, 1:] on the reply
  positions and -100 elsewhere (next-token shift). All-ignored labels, labels on prompts or
  padding, unshifted or doubly shifted labels, and a missing <|end|> all move it;
- recomputed: those batches hold supervised tokens at all (> 0 on every step);
- recomputed: the batches are left-padded, as the README's config asks (padding only before a
  row's first token), so switching the experiment to right padding does not stand in for the fix;
- reported: 60 AdamW steps peaking at lr 3e-3, as the README's config runs it;
- reported: the loss the training differentiates has a value for each of the 61 steps, starts
  near ln V (> 3.0 at step 0: the bug gives exactly 0) and the median of its last 10 values is
  below 2.7 (gold ~2.0-2.3; a model that does not learn stays near 3.9), three checks.

Then, once, on what the README's own command printed (source readme_run):
- `readme_run_completes`;
- `readme_run_logs_the_training`: steps 0, 10, ..., 60 with a loss;
- `readme_run_loss_at_step_0_near_ln_v` and `readme_run_loss_falls`: printed loss > 3.0 at step 0
  and < 2.7 at step 60 (bug: 0.0000 throughout);
- `readme_run_loss_matches_measured_training`: each printed loss equals the seed-0 backward value
  at that step (< 1e-3).
"""

import math
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.label_masking import IGNORE, measured_backward_values, next_token_reply_targets  # noqa: E402
from verifylib import decide_main, logged_rows  # noqa: E402

import torch  # noqa: E402

PAD, USER, ASSISTANT, END = 0, 1, 2, 3
CHAT_TOKENS = {"pad": PAD, "user": USER, "assistant": ASSISTANT, "end": END}
STEPS, PEAK_LR, LOG_EVERY = 60, 3e-3, 10
START_BOUND, END_BOUND, PRINTED_LOSS_TOL = 3.0, 2.7, 1e-3
README_SEED = 0
README_STEPS = list(range(0, STEPS + 1, LOG_EVERY))


def decide(seed, m, checks):
    n_steps, kinds, peak = m.number("optimizer_steps"), m.value("optimizers", list), m.value("peak_learning_rate")
    checks.check("optimizer_is_the_configured_adamw",
                 n_steps == STEPS and kinds == ["AdamW"] and isinstance(peak, float) and abs(peak - PEAK_LR) < 1e-12,
                 value={"steps": n_steps, "optimizers": kinds, "peak_lr": peak},
                 bound=f"{STEPS} AdamW steps peaking at lr {PEAK_LR}: the README's config, so another schedule or "
                       "a longer run cannot stand in for the fix", source="reported")

    n_fwd, n_ce = int(m.number("model_forward_calls")), int(m.number("cross_entropy_calls"))
    n = min(n_fwd, n_ce, STEPS + 1)
    batches = m.tensors("batches", keys=[f"ids_{i:03d}" for i in range(n)] + [f"targets_{i:03d}" for i in range(n)])
    wrong_steps, supervised, expected_total, empty_steps, not_left = [], 0, 0, 0, []
    for i in range(n):
        ids, got = batches[f"ids_{i:03d}"].long(), batches[f"targets_{i:03d}"].long()
        real = ids != PAD
        if not torch.equal(real.long().cummax(dim=1).values.bool(), real):
            not_left.append(i)
        want = next_token_reply_targets(ids, **CHAT_TOKENS)
        expected_total += int((want != IGNORE).sum())
        n_sup = int((got != IGNORE).sum())
        supervised += n_sup
        empty_steps += n_sup == 0
        if got.shape != want.shape or not torch.equal(got, want):
            wrong_steps.append(i)
    checks.check("labels_supervise_exactly_the_reply_tokens",
                 n == STEPS + 1 and n_fwd == n_ce and not wrong_steps,
                 value={"steps_checked": n, "model_forward_calls": n_fwd, "cross_entropy_calls": n_ce,
                        "steps_with_wrong_targets": wrong_steps[:10], "supervised_tokens": supervised,
                        "reply_tokens_in_the_batches": expected_total},
                 bound="targets == next reply token on reply positions, -100 elsewhere, at every step: the "
                       "supervision an SFT collator exists to build; the bug masks every position")
    checks.check("batches_are_left_padded", n > 0 and not not_left,
                 value={"steps_not_left_padded": not_left[:10], "steps": n},
                 bound="padding only before each row's first token, as padding_side = 'left' asks")
    checks.check("every_batch_supervises_tokens", n > 0 and empty_steps == 0,
                 value={"steps_without_supervised_tokens": empty_steps, "steps": n},
                 bound="0 steps with no supervised token (the bug: every step)")

    values = [float(v) for v in m.value("backward_values", list)][:STEPS + 1]
    first = values[0] if values else float("nan")
    last = statistics.median(values[-10:]) if values else float("inf")
    checks.check("optimized_loss_runs_the_readme_steps", len(values) == STEPS + 1,
                 value=len(values), bound=f"{STEPS + 1} values passed to backward (steps 0..{STEPS})", source="reported")
    checks.check("optimized_loss_at_step_0_near_ln_v", first > START_BOUND, value=round(first, 4),
                 bound=f"> {START_BOUND}: the first loss of a fresh model over the supervised reply tokens is near "
                       "ln 49 = 3.89; with every label masked it is exactly 0 (0/0 tokens), the README's symptom",
                 source="reported", limit=START_BOUND if math.isfinite(first) else None,
                 sense=">" if math.isfinite(first) else None)
    checks.check("optimized_loss_falls", last < END_BOUND, value=round(last, 4),
                 bound=f"< {END_BOUND}: median of the last 10 losses; supervised reply tokens are learnable in "
                       f"{STEPS} steps (a model that does not train stays near 3.9)", source="reported",
                 limit=END_BOUND if math.isfinite(last) else None, sense="<" if math.isfinite(last) else None)


def readme(run, measured, checks):
    rows = logged_rows(run["stdout"])
    logged = sorted(rows)
    checks.check("readme_run_logs_the_training", logged == README_STEPS and all("loss" in rows[s] for s in logged),
                 value=logged[:20], bound=f"steps 0, {LOG_EVERY}, ..., {STEPS} with a loss", source="readme_run")
    start = rows.get(0, {}).get("loss", math.nan)
    end = rows.get(STEPS, {}).get("loss", math.inf)
    checks.check("readme_run_loss_at_step_0_near_ln_v", start > START_BOUND, value=start,
                 bound=f"> {START_BOUND} at step 0: the README's symptom is a loss of 0.0000 from step 0 (every label "
                       "masked); ln 49 = 3.89 for a fresh model", source="readme_run",
                 limit=START_BOUND if math.isfinite(start) else None, sense=">" if math.isfinite(start) else None)
    checks.check("readme_run_loss_falls", end < END_BOUND, value=end,
                 bound=f"< {END_BOUND} at step {STEPS}: the reply tokens are learned", source="readme_run",
                 limit=END_BOUND if math.isfinite(end) else None, sense="<" if math.isfinite(end) else None)
    by_step = measured_backward_values(measured, README_SEED)
    diffs = {s: (round(abs(rows[s]["loss"] - by_step[s]), 6) if s < len(by_step) and "loss" in rows[s] else None)
             for s in logged}
    worst = max((d if d is not None else math.inf for d in diffs.values()), default=math.inf)
    checks.check("readme_run_loss_matches_measured_training", bool(diffs) and worst < PRINTED_LOSS_TOL,
                 value={"max_abs_diff": worst if math.isfinite(worst) else "n/a",
                        "printed": {s: rows[s].get("loss") for s in logged[:10]},
                        "measured": {s: round(by_step[s], 4) for s in logged[:10] if s < len(by_step)}},
                 bound=f"|printed - seed-0 backward value at the same step| < {PRINTED_LOSS_TOL}", source="readme_run")


decide_main(decide, readme=readme)
