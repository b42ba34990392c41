"""wip_frontier_case_01, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-f01-5b8e20d4c7a193f6

The bug: with gradient accumulation (configs/mix.toml: train.grad_accum = 4 micro-batches of
data.batch_size = 8), the Accumulator (chatft/accumulate.py) weights each micro-batch's mean
reply loss by its share of the window's targets, batch["num_targets"] / sum over the window.
That count is taken by the base Collator (chatft/data/collate.py) on its language-model labels
(every real token), before ReplyCollator (chatft/data/completion.py) masks the prompts, so it
counts prompt tokens too: a micro-batch's weight follows its total tokens, while its loss is a
mean over its reply tokens. A reply token of a micro-batch with long prompts and short replies
weighs more than one of a micro-batch with long replies; the length sorting makes the
micro-batches differ, so short-reply tasks are over-weighted and long-reply tasks under-trained.
With one micro-batch per step the share is 1 and the gradient is right. The logged loss uses
the same shares.

Checks per seed, at the README's settings (`--config configs/mix.toml`, seed set):
- recomputed: every checked window (windows 0, 9, 19, ..., 59 of the 60) is 4 micro-batches of 8
  conversations, as the README's config asks (so grad_accum = 1 does not stand in for the fix);
- recomputed: the gradient the agent's code accumulated over each checked window, before the
  clip, equals the gradient of the window's token-mean reply loss that the decider computes
  itself (own TinyGPT with the recorded weights, targets rebuilt from the ids): relative L2
  error below REL_TOL. After the clip (when the optimizer steps) it equals that gradient clipped
  to norm 1.0 the same way. Both come from the same weights in the same verification, so no
  figure measured elsewhere is a bound; REL_TOL only absorbs float32 summation order;
- reported: 60 AdamW steps peaking at lr 3e-3.

Then, once, on what the README's own command printed (source readme_run):
- `readme_run_logs_the_training`: steps 10, 20, ..., 60;
- `readme_run_loss_is_the_window_token_mean`: each printed loss (step s trained on window s - 1)
  equals the token-mean reply loss of that window recomputed from seed 0's weights (< 1e-3; the
  bug prints micro-batch means weighted by their shares of a count that includes the prompts);
- `readme_run_grad_norm_is_the_window_gradient_norm`: each printed grad norm equals the norm of
  the recomputed window gradient (< 2e-3 + 1e-3 relative).
"""

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import decide_main, logged_rows  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

PAD, USER, ASSISTANT, END = 0, 1, 2, 3
VOCAB, D_MODEL, N_HEAD, N_LAYER, BLOCK = 49, 64, 4, 2, 96
MICRO_BATCHES, MICRO_ROWS = 4, 8
STEPS, PEAK_LR, CLIP, LOG_EVERY = 60, 3e-3, 1.0, 10
LOGGED_STEPS = list(range(LOG_EVERY, STEPS + 1, LOG_EVERY))
WINDOWS = [0] + [s - 1 for s in LOGGED_STEPS]  # the step logged as s trained on window s - 1
REL_TOL, LOSS_TOL, NORM_TOL = 1e-3, 1e-3, 2e-3
README_SEED = 0


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


def reply_flags(ids):
    """(B, T) bool: the assistant's reply tokens (reply text and its closing <|end|>)."""
    flags = torch.zeros_like(ids, dtype=torch.bool)
    for b, row in enumerate(ids.tolist()):
        inside = False
        for t, tok in enumerate(row):
            if tok == ASSISTANT:
                inside = True
            elif tok == USER or tok == PAD:
                inside = False
            elif inside:
                flags[b, t] = True
                if tok == END:
                    inside = False
    return flags


def window_gradient(params, micro_ids):
    """(token-mean reply loss of the window, {name: gradient}) with the recorded weights."""
    model = TinyGPT()
    names = {n for n, _ in model.named_parameters()}
    missing = sorted(names - set(params))
    if missing:
        raise ValueError(f"weights missing for {missing[:3]}")
    model.load_state_dict({n: params[n] for n in names}, strict=False)
    total_nll, total_targets = 0.0, 0
    for ids in micro_ids:
        targets = ids[:, 1:].masked_fill(~reply_flags(ids)[:, 1:], -100)
        logits = model(ids)[:, :-1]
        nll = F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1), ignore_index=-100, reduction="sum")
        total_nll = total_nll + nll
        total_targets += int((targets != -100).sum())
    loss = total_nll / total_targets
    loss.backward()
    return float(loss.detach()), {n: p.grad.detach().clone() for n, p in model.named_parameters()}


def rel_error(got, want):
    names = sorted(want)
    if any(n not in got or got[n].shape != want[n].shape for n in names):
        return math.inf
    diff = torch.cat([(got[n].float() - want[n]).reshape(-1) for n in names]).norm()
    return float(diff / torch.cat([want[n].reshape(-1) for n in names]).norm())


def examine(m):
    """{window: (loss, grad norm, pre-clip error, post-clip error, shapes)} for one seed's artifacts."""
    out = {}
    for w in WINDOWS:
        art = m.tensors(f"window_{w:03d}")
        micro = [art[k].long() for k in sorted((k for k in art if k.startswith("ids_")), key=lambda k: int(k[4:]))]
        group = lambda kind: {k.split(".", 1)[1]: v for k, v in art.items() if k.startswith(kind + ".")}  # noqa: E731
        loss, grad = window_gradient(group("params"), micro)
        norm = float(torch.cat([g.reshape(-1) for g in grad.values()]).norm())
        clipped = {n: g * min(1.0, CLIP / (norm + 1e-6)) for n, g in grad.items()}
        pre, post = group("pre"), group("post")
        out[w] = {"loss": loss, "norm": norm, "shapes": [list(x.shape) for x in micro],
                  "pre": rel_error(pre, grad) if pre else None,
                  "post": rel_error(post, clipped) if post else None}
    return out


CACHE = {}


def decide(seed, m, checks):
    n_steps, kinds, peak = m.number("optimizer_steps"), m.value("optimizers", list), m.value("peak_learning_rate")
    checks.check("optimizer_is_the_configured_adamw",
                 n_steps == STEPS and kinds == ["AdamW"] and isinstance(peak, float) and abs(peak - PEAK_LR) < 1e-12,
                 value={"steps": n_steps, "optimizers": kinds, "peak_lr": peak},
                 bound=f"{STEPS} AdamW steps peaking at lr {PEAK_LR}", source="reported")
    found = examine(m)
    CACHE[seed] = found
    bad_shapes = {w: r["shapes"] for w, r in found.items()
                  if len(r["shapes"]) != MICRO_BATCHES or any(s[0] != MICRO_ROWS for s in r["shapes"])}
    checks.check("windows_are_4_micro_batches_of_8", not bad_shapes,
                 value={"windows_not_4x8": {str(k): v for k, v in list(bad_shapes.items())[:4]}},
                 bound=f"{MICRO_BATCHES} forward passes of {MICRO_ROWS} rows per optimizer step, as configs/mix.toml asks")
    worst_pre = max((r["pre"] for r in found.values() if r["pre"] is not None), default=None)
    worst_post = max((r["post"] for r in found.values() if r["post"] is not None), default=None)
    covered = all(r["post"] is not None for r in found.values())
    checks.check("accumulated_gradient_is_the_window_token_mean_gradient",
                 covered and (worst_pre is None or worst_pre < REL_TOL) and (worst_post is None or worst_post < REL_TOL),
                 value={"worst_rel_error_before_clip": worst_pre, "worst_rel_error_after_clip": worst_post,
                        "per_window_before_clip": {str(w): r["pre"] for w, r in found.items()}},
                 bound=f"relative L2 error < {REL_TOL} against the decider's gradient of sum(reply NLL) / "
                       f"(reply tokens of the window), at windows {', '.join(map(str, WINDOWS))}",
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
