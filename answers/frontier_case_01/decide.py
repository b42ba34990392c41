"""frontier_case_01, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-f01-5b8e20d4c7a193f6

Two independent defects, in different subsystems, both at the README's settings
(configs/mix.toml: train.grad_accum = 4 micro-batches of data.batch_size = 8, longest first,
data.block_size = 72):
A. The Accumulator (chatft/accumulate.py) keeps a running token mean: each micro-batch's mean
   reply loss enters with its share batch["num_targets"] / (targets seen so far). That count is
   taken by the base Collator (chatft/data/collate.py) on its language-model labels (every real
   token), before ReplyCollator (chatft/data/completion.py) masks the prompts, so a micro-batch's
   weight follows its total tokens while its loss is a mean over its reply tokens. With one
   micro-batch per step (the colleague's 1x32 run) the share is 1 and the gradient is right.
B. The training conversations are drawn to fit the context (chatft/data/tasks.py,
   make_conversations(max_length=data.block_size), called by train.build_data), but "fits" is
   measured on the rendered text, where each role marker (<|user|>, <|end|>, <|assistant|>) is
   7-13 characters and one token: a single-turn conversation measures 31 more than its tokens,
   so every conversation whose prompt and reply exceed about 37 characters is silently drawn
   again. No conversation of the mix is longer than 50 tokens; the ones redrawn are the
   three-word sorts and the three- and four-fold repeats, so the long replies are never trained
   on (both runs of the README share it; sort and repeat about 0.5-0.7 worse on every seed).

Checks per seed, at the README's settings (`--config configs/mix.toml`, seed set):
- recomputed: every checked window (windows 0, 9, 19, ..., 59 of the 60) is 4 micro-batches of 8
  conversations, as the README's config asks (so grad_accum = 1 does not stand in for the fix);
- recomputed, `accumulated_gradient_is_the_window_token_mean_gradient`: the gradient as it stood
  at the window's last clip_grad_norm_ call equals the gradient of the window's token-mean reply
  loss that the decider computes itself (own TinyGPT with the recorded weights, targets rebuilt
  from the ids): relative L2 error below REL_TOL (both layers move it);
- recomputed, `step_gradient_is_the_window_gradient_clipped_once`: the gradient the optimizer
  steps with equals that gradient clipped once to norm 1.0 (layer 2 moves it even when layer 1
  is fixed; so does a fix that drops the clip). Its value gives, at the worst window, each
  micro-batch's weight in the step's gradient (least squares over the decider's per-micro-batch
  gradients) divided by its right weight, reply-token share times the one clip factor;
Both come from the same weights in the same verification, so no figure measured elsewhere is a
bound; REL_TOL only absorbs float32 summation order;
- recomputed, `trained_conversations_are_the_generated_ones`: the distinct conversations the model
  trained on (every gradient-enabled forward's rows, padding stripped) are the training
  generator's first data.n_train draws, with only those longer than data.block_size tokens drawn
  again (none at these settings), which the decider draws itself (a copy of the task generator,
  template and tokenizer): no conversation outside that set, and at least COVERAGE of its
  distinct conversations seen in the 60 steps (layer B: about 40% of the long-reply ones missing
  and as many others in their place);
- reported: 60 AdamW steps peaking at lr 3e-3.

Then, once, on what the README's own command printed (source readme_run):
- `readme_run_logs_the_training`: steps 10, 20, ..., 60;
- `readme_run_loss_is_the_window_token_mean`: each printed loss (step s trained on window s - 1)
  equals the token-mean reply loss of that window recomputed from seed 0's weights (< 1e-3; the
  bug prints micro-batch means weighted by their shares of a count that includes the prompts);
- `readme_run_grad_norm_is_the_window_gradient_norm`: each printed grad norm equals the norm of
  the recomputed window gradient before the clip (< 2e-3 + 1e-3 relative; layer 2 prints the
  last partial mean's norm, about 1.0).
"""

import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from families.label_masking import IGNORE, next_token_reply_targets  # noqa: E402
from verifylib import decide_main, logged_rows  # noqa: E402

PAD, USER, ASSISTANT, END = 0, 1, 2, 3
VOCAB, D_MODEL, N_HEAD, N_LAYER, BLOCK = 49, 64, 4, 2, 72
MICRO_BATCHES, MICRO_ROWS = 4, 8
STEPS, PEAK_LR, CLIP, LOG_EVERY = 60, 3e-3, 1.0, 10
LOGGED_STEPS = list(range(LOG_EVERY, STEPS + 1, LOG_EVERY))
WINDOWS = [0] + [s - 1 for s in LOGGED_STEPS]  # the step logged as s trained on window s - 1
REL_TOL, LOSS_TOL, NORM_TOL = 1e-3, 1e-3, 2e-3
README_SEED = 0
N_TRAIN, COVERAGE = 1000, 0.95


# --- the case's training data, copied (chatft/data/tasks.py, template.py, tokenizer.py) ----

WORDS = ("apple river stone cloud tiger lemon piano rocket garden silver candle "
         "forest window monkey pepper castle dragon yellow orange planet").split()
CHARS = "abcdefghijklmnopqrstuvwxyz0123456789 .,:?!'-\n"


def _draw(rng, task):
    if task == "count":
        words = rng.sample(WORDS, rng.randint(2, 4))
        return f"count: {' '.join(words)}", str(len(words))
    if task == "first":
        words = rng.sample(WORDS, rng.randint(2, 3))
        return f"initials of {' '.join(words)}", "".join(w[0] for w in words)
    if task == "reverse":
        w = rng.choice(WORDS)
        return f"reverse the word {w}", w[::-1]
    if task == "dashes":
        w = rng.choice(WORDS)
        return f"spell {w} with dashes", "-".join(w)
    if task == "sort":
        words = rng.sample(WORDS, rng.randint(2, 3))
        return f"sort: {' '.join(words)}", " ".join(sorted(words))
    w, n = rng.choice(WORDS), rng.randint(2, 4)
    return f"say {w} {n} times", " ".join([w] * n)


def training_conversations(seed):
    """Token ids of the training set the README's config asks for: single-turn draws, those over BLOCK tokens redrawn."""
    import random

    rng, tasks, out = random.Random(seed), ("count", "first", "reverse", "dashes", "sort", "repeat"), []
    enc = lambda text: [4 + CHARS.index(c) for c in text]  # noqa: E731
    while len(out) < N_TRAIN:
        rng.randint(1, 1)
        q, a = _draw(rng, rng.choice(tasks))
        ids = [USER] + enc(q) + [END, ASSISTANT] + enc(a) + [END]
        if len(ids) <= BLOCK:
            out.append((ids, len(a)))
    return out


def digest(ids):
    import hashlib

    return hashlib.sha1(",".join(map(str, ids)).encode()).hexdigest()[:16]


# --- the case's model, copied (chatft/models/gpt.py), right padding -----------------------


class SelfAttention(nn.Module):
    def __init__(self, d, n_head):
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x, mask):
        B, T, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = (t.reshape(B, T, self.n_head, D // self.n_head).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(D // self.n_head)
        scores = scores.masked_fill(~mask, float("-inf"))
        y = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, T, D)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, d, n_head):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = SelfAttention(d, n_head)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d), nn.Dropout(0.0))

    def forward(self, x, mask):
        x = x + self.attn(self.ln1(x), mask)
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok_emb = nn.Embedding(VOCAB, D_MODEL)
        self.pos_emb = nn.Embedding(BLOCK, D_MODEL)
        self.blocks = nn.ModuleList([Block(D_MODEL, N_HEAD) for _ in range(N_LAYER)])
        self.ln_f = nn.LayerNorm(D_MODEL)
        self.lm_head = nn.Linear(D_MODEL, VOCAB, bias=False)

    def forward(self, ids):
        real = ids != PAD
        B, T = ids.shape
        pos = ((real.long().cumsum(-1) - 1).clamp_min(0)) * real.long()
        x = self.tok_emb(ids) + self.pos_emb(pos)
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        mask = (causal & real[:, None, None, :]) | torch.eye(T, dtype=torch.bool)
        for blk in self.blocks:
            x = blk(x, mask)
        return self.lm_head(self.ln_f(x))


def micro_batch_gradients(params, micro_ids):
    """[(reply NLL sum, reply targets, {name: gradient of the micro-batch's mean reply loss})], recorded weights."""
    model = TinyGPT()
    names = {n for n, _ in model.named_parameters()}
    missing = sorted(names - set(params))
    if missing:
        raise ValueError(f"weights missing for {missing[:3]}")
    model.load_state_dict({n: params[n] for n in names}, strict=False)
    out = []
    for ids in micro_ids:
        model.zero_grad(set_to_none=True)
        targets = next_token_reply_targets(ids, pad=PAD, user=USER, assistant=ASSISTANT, end=END)
        logits = model(ids)[:, :-1]
        nll = F.cross_entropy(logits.reshape(-1, VOCAB), targets, ignore_index=IGNORE, reduction="sum")
        n = int((targets != IGNORE).sum())
        (nll / max(1, n)).backward()
        out.append((float(nll.detach()), n, {k: p.grad.detach().clone() for k, p in model.named_parameters()}))
    return out


def flat(grad, names):
    return torch.cat([grad[n].reshape(-1).double() for n in names])


def rel_error(got, want):
    names = sorted(want)
    if any(n not in got or got[n].shape != want[n].shape for n in names):
        return math.inf
    diff = torch.cat([(got[n].float() - want[n]).reshape(-1) for n in names]).norm()
    return float(diff / torch.cat([want[n].reshape(-1) for n in names]).norm())


def weight_ratios(got, parts, right):
    """Each micro-batch's least-squares weight in ``got`` over the decider's gradients, divided by ``right``."""
    names = sorted(parts[0][2])
    if any(n not in got or got[n].shape != parts[0][2][n].shape for n in names):
        return None
    basis = torch.stack([flat(g, names) for _, _, g in parts], dim=1)
    weights = torch.linalg.lstsq(basis, flat(got, names)[:, None]).solution[:, 0]
    return [round(float(w / r), 3) if r else None for w, r in zip(weights, right)]


def examine(m):
    """{window: loss, grad norm, pre-clip error, post-clip error, micro-batch weight ratios, shapes} for one seed."""
    out = {}
    for w in WINDOWS:
        art = m.tensors(f"window_{w:03d}")
        micro = [art[k].long() for k in sorted((k for k in art if k.startswith("ids_")), key=lambda k: int(k[4:]))]
        group = lambda kind: {k.split(".", 1)[1]: v for k, v in art.items() if k.startswith(kind + ".")}  # noqa: E731
        parts = micro_batch_gradients(group("params"), micro)
        total = sum(n for _, n, _ in parts)
        shares = [n / total for _, n, _ in parts]
        grad = {k: sum(sh * g[k] for sh, (_, _, g) in zip(shares, parts)) for k in parts[0][2]}
        norm = float(torch.cat([g.reshape(-1) for g in grad.values()]).norm())
        factor = min(1.0, CLIP / (norm + 1e-6))
        clipped = {n: g * factor for n, g in grad.items()}
        pre, post = group("pre"), group("post")
        out[w] = {"loss": sum(nll for nll, _, _ in parts) / total, "norm": norm,
                  "shapes": [list(x.shape) for x in micro],
                  "clip_calls": int(art["clip_calls"]) if "clip_calls" in art else None,
                  "pre": rel_error(pre, grad) if pre else None,
                  "post": rel_error(post, clipped) if post else None,
                  "weights": weight_ratios(post, parts, [sh * factor for sh in shares]) if post else None}
    return out


CACHE = {}


def decide(seed, m, checks):
    n_steps, kinds, peak = m.number("optimizer_steps"), m.value("optimizers", list), m.value("peak_learning_rate")
    checks.check("optimizer_is_the_configured_adamw",
                 n_steps == STEPS and kinds == ["AdamW"] and isinstance(peak, float) and abs(peak - PEAK_LR) < 1e-12,
                 value={"steps": n_steps, "optimizers": kinds, "peak_lr": peak},
                 bound=f"{STEPS} AdamW steps peaking at lr {PEAK_LR}", source="reported")
    expected = {}
    for ids, reply_chars in training_conversations(seed):
        expected[digest(ids)] = reply_chars
    trained = set(m.value("trained_rows", list))
    extra = sorted(trained - set(expected))
    missing = [d for d in expected if d not in trained]
    long_missing = sum(1 for d in missing if expected[d] >= 17)
    long_total = sum(1 for r in expected.values() if r >= 17)
    coverage = 1 - len(missing) / len(expected)
    checks.check("trained_conversations_are_the_generated_ones",
                 not extra and coverage >= COVERAGE,
                 value={"distinct_trained": len(trained), "distinct_expected": len(expected),
                        "not_in_the_generated_set": len(extra), "coverage": round(coverage, 4),
                        "long_reply_conversations_missing": f"{long_missing}/{long_total}"},
                 bound=f"every trained conversation among the generator's first {N_TRAIN} draws (those over "
                       f"{BLOCK} tokens redrawn: none here), and at least {COVERAGE:.0%} of them trained on")
    found = examine(m)
    CACHE[seed] = found
    bad_shapes = {w: r["shapes"] for w, r in found.items()
                  if len(r["shapes"]) != MICRO_BATCHES or any(s[0] != MICRO_ROWS for s in r["shapes"])}
    checks.check("windows_are_4_micro_batches_of_8", not bad_shapes,
                 value={"windows_not_4x8": {str(k): v for k, v in list(bad_shapes.items())[:4]}},
                 bound=f"{MICRO_BATCHES} forward passes of {MICRO_ROWS} rows per optimizer step, as configs/mix.toml asks")
    worst_pre = max((r["pre"] for r in found.values() if r["pre"] is not None), default=None)
    checks.check("accumulated_gradient_is_the_window_token_mean_gradient",
                 worst_pre is None or worst_pre < REL_TOL,
                 value={"worst_rel_error_at_the_last_clip": worst_pre,
                        "clip_calls_per_window": {str(w): r["clip_calls"] for w, r in found.items()},
                        "per_window": {str(w): r["pre"] for w, r in found.items()}},
                 bound=f"relative L2 error < {REL_TOL} against the decider's gradient of sum(reply NLL) / "
                       f"(reply tokens of the window), at windows {', '.join(map(str, WINDOWS))} "
                       "(no clip_grad_norm_ call: the step check alone decides)",
                 limit=REL_TOL, sense="<")
    posts = {w: r["post"] for w, r in found.items()}
    covered = all(v is not None for v in posts.values())
    worst_post = max((v for v in posts.values() if v is not None), default=None)
    worst_window = max((w for w in posts if posts[w] is not None), key=lambda w: posts[w], default=None)
    checks.check("step_gradient_is_the_window_gradient_clipped_once",
                 covered and worst_post is not None and worst_post < REL_TOL,
                 value={"worst_rel_error": worst_post, "per_window": {str(w): v for w, v in posts.items()},
                        "micro_batch_weight_over_right_weight_at_worst_window":
                            found[worst_window]["weights"] if worst_window is not None else None},
                 bound=f"relative L2 error < {REL_TOL} against the decider's window gradient clipped once to norm "
                       f"{CLIP}, at the optimizer step of windows {', '.join(map(str, WINDOWS))}",
                 limit=REL_TOL, sense="<")


def readme(run, measured, checks):
    rows = logged_rows(run["stdout"])
    logged = sorted(rows)
    checks.check("readme_run_logs_the_training", logged == LOGGED_STEPS and all("loss" in rows[s] for s in logged),
                 value=logged[:20], bound=f"steps {LOG_EVERY}, {2 * LOG_EVERY}, ..., {STEPS} with a loss",
                 source="readme_run")
    found = CACHE.get(README_SEED)
    if found is None and measured.get(README_SEED) is not None:
        found = examine(measured[README_SEED])
    found = found or {}
    window_of = {s: s - 1 for s in logged if s - 1 in found}
    loss_diff = {s: abs(rows[s]["loss"] - found[w]["loss"]) for s, w in window_of.items() if "loss" in rows[s]}
    worst = max(loss_diff.values(), default=math.inf)
    checks.check("readme_run_loss_is_the_window_token_mean",
                 len(loss_diff) == len(LOGGED_STEPS) and worst < LOSS_TOL,
                 value={"max_abs_diff": round(worst, 5) if math.isfinite(worst) else "n/a",
                        "printed": {s: rows[s].get("loss") for s in logged[:6]},
                        "token_mean": {s: round(found[w]["loss"], 4) for s, w in window_of.items()}},
                 bound=f"|printed loss at step s - token-mean reply loss of window s - 1 (seed 0 weights)| < {LOSS_TOL}",
                 source="readme_run")
    norm_ok = {s: abs(rows[s].get("grad norm", math.inf) - found[w]["norm"]) < NORM_TOL + 1e-3 * found[w]["norm"]
               for s, w in window_of.items()}
    checks.check("readme_run_grad_norm_is_the_window_gradient_norm",
                 len(norm_ok) == len(LOGGED_STEPS) and all(norm_ok.values()),
                 value={"printed": {s: rows[s].get("grad norm") for s in logged[:6]},
                        "recomputed": {s: round(found[w]["norm"], 4) for s, w in window_of.items()}},
                 bound=f"|printed - recomputed| < {NORM_TOL} + 1e-3 x recomputed", source="readme_run")


decide_main(decide, readme=readme)
