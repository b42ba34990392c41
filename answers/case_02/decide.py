"""case_02, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-c02-5eb46dc3224b96c8

The bug: collate() masks every label to -100 (its padding flag is the attention mask itself), so
the SFT loss has nothing to supervise and is exactly 0. The invariant the bug breaks: the loss
the training optimizes is the next-token cross-entropy averaged over exactly the assistant reply
tokens (reply text and its closing <|end|>; never user turns, role headers or padding). Checks
per seed, at the README's settings (Config defaults: AdamW lr 3e-3, batch 16, 40 steps):

- recomputed: in every training step, the labels lm_loss receives are the input ids on the reply
  tokens and -100 everywhere else, the reply spans being derived here from the input ids alone
  (this file's copy of the chat template: after each <|assistant|> header up to and including
  its <|end|>). All-masked labels, padding or prompts as targets, a dropped <|end|>, labels
  shifted in the collator all move it;
- reported against recomputed: the scalar the training differentiates (a hook on backward) at
  its first and at its last step equals the loss this file computes with its own copy of
  TinyGPT, loaded with the weights the model had at that step, on that step's input ids:
  next-token cross-entropy averaged over the reply tokens (|difference| < 1e-3). An unshifted
  loss, another denominator or a rescaled loss moves it (at step 0 it is ~ln 49 = 3.89, as the
  README expects);
- recomputed: the trained weights, in this file's own model, reach a held-out reply-token
  next-token loss below 3.0 on this file's own held-out conversations (the bug leaves ~3.89;
  the README expects the loss to drop well below 3 within the 40 steps);
- reported: the training stepped 40 times with AdamW at lr 3e-3 on batches of 16, as the README
  runs it, and every step had one forward, one lm_loss call and one backward.

Then, once, on what the README's own command (`python train.py`, run by the harness on a fresh
copy of the agent's files as the user runs it: plain python, no hooks) printed (source
readme_run). Code that recognises the verifier (python -I, measure.py in argv, hooks) and is
fixed only there fails these:

- `readme_run_completes` (verifylib, every case): exit code 0, not timed out;
- `readme_run_logs_the_training`: it logs the README's steps 0, 10, 20, 30, 40 with loss and grad norm;
- `readme_run_step0_loss_near_ln_vocab`: the loss printed at step 0 is >= 3.0 (a fresh model's
  reply-token cross-entropy is ~ln 49 = 3.89, gold prints 3.92; the bug prints 0.0000);
- `readme_run_grad_norm_nonzero`: the grad norm printed at every logged step is >= 0.01 (the bug
  prints 0.000 throughout; gold 1.5-2.6);
- `readme_run_loss_drops_below_3`: the loss printed at step 40 is in (0, 3.0) (gold 1.87);
- `readme_run_loss_matches_measured_training`: the README's run is seed 0 at the Config defaults,
  which is what the measuring process trained: the loss printed at each logged step equals the
  value the measuring process saw passed to backward at that step (|difference| < 1e-3; honest
  code prints the very same numbers to the printed 4 decimals), and the losses printed at steps 0
  and 40 equal this file's own reply next-token CE from the seed-0 weights at those steps
  (|difference| < 2e-3).
"""

import math
import random
import string
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.label_masking import IGNORE, measured_backward_values  # noqa: E402
from verifylib import Unreadable, decide_main, logged_rows  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

STEPS, LR, BATCH = 40, 3e-3, 16
LOSS_TOL = 1e-3
HELDOUT_BOUND = 3.0
N_HELDOUT, HELDOUT_SEED = 100, 7919
MAX_STEPS_SAVED = 64  # as in measure.py
README_SEED, LOG_EVERY = 0, 10  # the README's run: Config() defaults, i.e. seed 0 at the measured settings
README_STEPS = list(range(0, STEPS + 1, LOG_EVERY))
STEP0_FLOOR, GRAD_FLOOR, PRINTED_LOSS_TOL, RECOMPUTED_LOSS_TOL = 3.0, 0.01, 1e-3, 2e-3
README_SEED_VALUES = {}  # step -> reply CE this file recomputed for seed 0, for the checks on the README's run

# --- this file's copies of the case's tokenizer, chat template, data and model ---------------

SPECIALS = ["<pad>", "<|user|>", "<|assistant|>", "<|end|>"]
ITOS = SPECIALS + list(string.ascii_lowercase + string.digits + " .,:?!'-\n")
STOI = {s: i for i, s in enumerate(ITOS)}
PAD, USER, ASSISTANT, END = (STOI[s] for s in SPECIALS)
VOCAB = len(ITOS)
WORDS = ("apple river stone cloud tiger lemon piano rocket garden silver candle "
         "forest window monkey pepper castle dragon yellow orange planet").split()


def encode(text):
    return [STOI[c] for c in text]


def _task(rng):
    kind = rng.choice(["reverse", "upper", "count", "first", "sort"])
    words = rng.sample(WORDS, rng.randint(2, 3))
    if kind == "reverse":
        return f"reverse the word {words[0]}", words[0][::-1]
    if kind == "upper":
        return f"spell {words[0]} with dashes", "-".join(words[0])
    if kind == "count":
        return f"how many words: {' '.join(words)}?", str(len(words))
    if kind == "first":
        return f"first letters of {' '.join(words)}", "".join(w[0] for w in words)
    return f"sort: {' '.join(words)}", " ".join(sorted(words))


def heldout_batch(n, seed, max_turns=2):
    """Conversations rendered with the chat template, right-padded, with reply-only labels."""
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        ids = []
        for _ in range(rng.randint(1, max_turns)):
            q, a = _task(rng)
            ids += [USER] + encode(q) + [END] + [ASSISTANT] + encode(a) + [END]
        rows.append(ids)
    T = max(map(len, rows))
    input_ids = torch.full((n, T), PAD, dtype=torch.long)
    for i, ids in enumerate(rows):
        input_ids[i, :len(ids)] = torch.tensor(ids)
    return input_ids


def reply_labels(ids):
    """Reply tokens of the template, derived from the token ids alone; -100 elsewhere."""
    want = torch.full_like(ids, IGNORE)
    for r in range(ids.size(0)):
        inside = False
        for t in range(ids.size(1)):
            tid = int(ids[r, t])
            if tid == PAD:
                inside = False
            elif inside:
                want[r, t] = tid
                if tid == END:
                    inside = False
            elif tid == ASSISTANT:
                inside = True
    return want


class Block(nn.Module):
    def __init__(self, d, n_head):
        super().__init__()
        self.n_head = n_head
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, attn_mask):
        B, T, D = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(D, dim=-1)
        q, k, v = (t.view(B, T, self.n_head, D // self.n_head).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
        x = x + self.proj(y.transpose(1, 2).reshape(B, T, D))
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab_size=VOCAB, d_model=64, n_head=4, n_layer=2, block_size=128):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Embedding(block_size, d_model)
        self.blocks = nn.ModuleList([Block(d_model, n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, input_ids):
        B, T = input_ids.shape
        x = self.tok_emb(input_ids) + self.pos_emb(torch.arange(T))
        real = input_ids != PAD
        mask = torch.ones(T, T, dtype=torch.bool).tril() & real[:, None, None, :]
        for blk in self.blocks:
            x = blk(x, mask)
        return self.lm_head(self.ln_f(x))


def load_model(state):
    """The agent's weights in this file's TinyGPT: by name, or by order when only the names differ."""
    model = TinyGPT()
    ours = model.state_dict()
    if set(state) != set(ours):
        if [tuple(v.shape) for v in state.values()] != [tuple(v.shape) for v in ours.values()]:
            raise Unreadable(f"the trained weights {list(state)[:6]}... are not the case's TinyGPT")
        state = dict(zip(ours, state.values()))
    try:
        model.load_state_dict({k: v.float() for k, v in state.items()})
    except RuntimeError as exc:
        raise Unreadable(f"the trained weights do not fit the case's TinyGPT: {exc}"[:300]) from exc
    return model.eval()


def reply_loss(model, ids):
    """Next-token cross-entropy averaged over the reply tokens (the loss the training should optimize)."""
    want = reply_labels(ids)[:, 1:]
    logits = model(ids)[:, :-1]
    n = int((want != IGNORE).sum())
    if n == 0:
        return float("nan"), 0
    return F.cross_entropy(logits.reshape(-1, VOCAB), want.reshape(-1), ignore_index=IGNORE,
                           reduction="sum").item() / n, n


def decide(seed, m, checks):
    n_fwd, n_loss, n_bwd = m.number("forward_calls"), m.number("lm_loss_calls"), m.number("backward_calls")
    n_steps, kinds, lrs = m.number("optimizer_steps"), m.value("optimizers", list), m.value("learning_rates", list)
    batches = m.tensors("batches")
    sizes = sorted({int(v.shape[0]) for k, v in batches.items() if k.startswith("ids_") and v.dim() == 2})
    checks.check("training_runs_the_readme_configuration",
                 n_steps == STEPS and kinds == ["AdamW"] and lrs == [LR] and n_fwd == n_loss == n_bwd == STEPS + 1
                 and sizes == [BATCH],
                 value={"optimizer_steps": n_steps, "optimizers": kinds, "lrs": lrs, "forward_calls": n_fwd,
                        "lm_loss_calls": n_loss, "backward_calls": n_bwd, "batch_sizes": sizes},
                 bound=f"{STEPS} AdamW steps at lr {LR}, batch {BATCH}, one forward/lm_loss/backward per step",
                 source="reported")
    n = int(min(n_fwd, n_loss, MAX_STEPS_SAVED))
    ids = [batches.get(f"ids_{i:03d}") for i in range(n)]
    labels = [batches.get(f"labels_{i:03d}") for i in range(n)]
    if n == 0 or any(t is None for t in ids + labels):
        raise Unreadable(f"the batches artifact lacks steps: {n_fwd} forward and {n_loss} lm_loss calls, "
                         f"keys {sorted(batches)[:4]}...")

    have = want = wrong = 0
    for x, y in zip(ids, labels):
        if x.dim() != 2 or x.is_floating_point() or y.shape != x.shape:
            wrong += x.numel()
            continue
        x, y = x.long(), y.long()
        expected = reply_labels(x)
        y = y.masked_fill(y < 0, IGNORE)  # the ignore index is the only negative label cross-entropy accepts
        have += int((y != IGNORE).sum())
        want += int((expected != IGNORE).sum())
        wrong += int((y != expected).sum())
    checks.check("labels_supervise_exactly_the_replies", wrong == 0 and have == want > 0,
                 value={"supervised": have, "reply_tokens": want, "mismatched_positions": wrong},
                 bound="supervised == reply tokens, 0 mismatched")

    values = [float(v) for v in m.value("backward_values", list)]
    got = {}
    for step, name in ((0, "first"), (n - 1, "last")):
        model = load_model(m.tensors(f"weights_{name}"))
        with torch.no_grad():
            expected, _ = reply_loss(model, ids[step].long())
        optimized = values[step] if step < len(values) else float("nan")
        got[f"step_{step}"] = {"optimized": round(optimized, 5), "reply_next_token_ce": round(expected, 5)}
        if seed == README_SEED:
            README_SEED_VALUES[step] = expected
    checks.check("optimized_loss_is_reply_next_token_ce",
                 all(abs(v["optimized"] - v["reply_next_token_ce"]) < LOSS_TOL for v in got.values()), value=got,
                 bound=f"|difference| < {LOSS_TOL}", source="reported")

    with torch.no_grad():
        heldout, n_tokens = reply_loss(load_model(m.tensors("weights_last")), heldout_batch(N_HELDOUT, HELDOUT_SEED))
    checks.check("heldout_reply_loss_drops", heldout < HELDOUT_BOUND,
                 value=round(heldout, 4), limit=HELDOUT_BOUND, sense="<",
                 bound=f"< {HELDOUT_BOUND}: the trained weights' next-token loss on {n_tokens} held-out reply tokens; "
                       f"the bug trains on nothing and leaves it at ~ln {VOCAB} = {math.log(VOCAB):.2f}, the README "
                       "expects it well below 3 after the 40 steps")


def readme(run, measured, checks):
    rows = logged_rows(run["stdout"])
    logged = sorted(rows)
    checks.check("readme_run_logs_the_training",
                 logged == README_STEPS and all({"loss", "grad norm"} <= set(rows[s]) for s in logged),
                 value=logged[:20], bound=f"steps {README_STEPS} with loss and grad norm", source="readme_run")
    loss = {s: rows[s].get("loss", math.nan) for s in logged}
    first, last = loss.get(0, math.nan), loss.get(STEPS, math.nan)
    checks.check("readme_run_step0_loss_near_ln_vocab", first >= STEP0_FLOOR, value=first,
                 bound=f">= {STEP0_FLOOR} at step 0 (ln 49 = 3.89; the bug prints 0.0000)", source="readme_run")
    grads = {s: rows[s].get("grad norm", math.nan) for s in logged}
    checks.check("readme_run_grad_norm_nonzero", bool(grads) and all(g >= GRAD_FLOOR for g in grads.values()),
                 value=grads, bound=f">= {GRAD_FLOOR} at every logged step (the bug prints 0.000)", source="readme_run")
    checks.check("readme_run_loss_drops_below_3", 0 < last < HELDOUT_BOUND, value=last,
                 bound=f"in (0, {HELDOUT_BOUND}) at step {STEPS}", source="readme_run")

    by_step = measured_backward_values(measured, README_SEED)
    diffs = [abs(loss[s] - by_step[s]) if s < len(by_step) else math.inf for s in logged]
    worst = max(diffs, default=math.inf)
    recomputed = {s: round(abs(loss.get(s, math.nan) - v), 6) for s, v in README_SEED_VALUES.items()}
    checks.check("readme_run_loss_matches_measured_training",
                 bool(diffs) and worst < PRINTED_LOSS_TOL and sorted(recomputed) == [0, STEPS]
                 and all(d < RECOMPUTED_LOSS_TOL for d in recomputed.values()),
                 value={"max_abs_diff_to_backward": round(worst, 6) if math.isfinite(worst) else "n/a",
                        "abs_diff_to_recomputed_reply_ce": recomputed, "printed": loss,
                        "measured": {s: round(by_step[s], 4) for s in logged if s < len(by_step)}},
                 bound=f"|printed - seed-0 backward value| < {PRINTED_LOSS_TOL} at every logged step; "
                       f"|printed - recomputed reply CE| < {RECOMPUTED_LOSS_TOL} at steps 0 and {STEPS}",
                 source="readme_run")


decide_main(decide, readme=readme)
