"""case_02 verifier: the loss the training really optimizes must supervise exactly the
assistant replies.

For the first 20 optimizer steps of the repo's own train() the verifier records, for every
gradient-enabled call, the input ids the model sees and the labels the loss receives. From
the input ids alone it derives the reply spans of the chat template (the tokens after each
<|assistant|> header up to and including the closing <|end|>, never padding) and requires:

- labels equal the input ids on those positions and -100 everywhere else (so the count of
  trainable labels equals the reply-token count: all-masked batches fail, and so does
  training on every token);
- the step-0 loss is about ln(vocab) (a real prediction problem, not an empty mask), and
- the loss falls by at least 0.5 nats within 20 steps (the gradient reaches the model).
"""

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from verifylib import SEEDS, Checks, setup  # noqa: E402

setup()
import torch  # noqa: E402

import model  # noqa: E402  (the agent's model.py)
import train  # noqa: E402  (the agent's train.py)
from tokenizer import CharTokenizer  # noqa: E402

STEPS = 20
INIT_TOL = 0.25
MIN_DROP = 0.5
IGNORE = -100

tok = CharTokenizer()
forwards, losses = [], []  # gradient-enabled calls only (evaluation runs under no_grad)


_forward = model.TinyGPT.forward


def _record_forward(self, input_ids, *args, **kwargs):
    if torch.is_grad_enabled():
        forwards.append(input_ids.detach().clone())
    return _forward(self, input_ids, *args, **kwargs)


model.TinyGPT.forward = _record_forward
_lm_loss = train.lm_loss


def _spy_loss(logits, labels, *args, **kwargs):
    out = _lm_loss(logits, labels, *args, **kwargs)
    if torch.is_grad_enabled():
        losses.append((labels.detach().clone(), float(out.detach())))
    return out


train.lm_loss = _spy_loss


def expected_labels(ids):
    """Reply tokens of the template, derived from the token ids alone."""
    want = torch.full_like(ids, IGNORE)
    for r in range(ids.size(0)):
        inside = False
        for t in range(ids.size(1)):
            tid = int(ids[r, t])
            if tid == tok.pad_id:
                inside = False
            elif inside:
                want[r, t] = tid
                if tid == tok.end_id:
                    inside = False
            elif tid == tok.assistant_id:
                inside = True
    return want


checks = Checks()
for seed in SEEDS:
    with checks.seed(seed):
        forwards.clear()
        losses.clear()
        cfg = train.Config(seed=seed, steps=STEPS)
        train.train(cfg)
        assert len(forwards) == len(losses) >= STEPS, f"recorded {len(forwards)} forwards, {len(losses)} losses"
        n_have = n_want = mismatched = 0
        for ids, (labels, _) in zip(forwards, losses):
            want = expected_labels(ids)
            n_have += int((labels != IGNORE).sum())
            n_want += int((want != IGNORE).sum())
            mismatched += int((labels != want).sum())
        checks.check("trainable_tokens_equal_reply_tokens", n_have == n_want,
                     value={"trainable": n_have, "reply_tokens": n_want}, bound="equal")
        checks.check("labels_are_input_ids_on_replies_only", mismatched == 0,
                     value={"mismatched_positions": mismatched}, bound="0")
        curve = [v for _, v in losses]
        ln_v = math.log(tok.vocab_size)
        checks.check("step0_loss_near_ln_vocab", abs(curve[0] - ln_v) < INIT_TOL,
                     value=round(curve[0], 4), bound=f"|loss - {ln_v:.3f}| < {INIT_TOL}")
        late = min(curve[STEPS - 4:STEPS + 1])
        checks.check("loss_falls_within_20_steps", late < curve[0] - MIN_DROP,
                     value={"step0": round(curve[0], 4), "best_of_steps_16_20": round(late, 4)},
                     bound=f"drop > {MIN_DROP}")
checks.finish()
