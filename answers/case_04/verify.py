"""case_04 verifier: one recording's prediction must not depend on the other recordings in
its batch. In eval mode (BatchNorm on running statistics, dropout off) there is no
legitimate path from row j of the input to row i of the output, so the gradient of
output[i] with respect to input[j] must be exactly zero for every j != i. Folding the
(B, T) layout into (T, B) with a reshape/view puts frames of other recordings into each
sequence, which gives non-zero cross-row gradients at any B > 1 with T != B; at B = 1 or
square shapes the folding can look harmless, so the sizes below are distinct and B > 1.

Also checked, per seed:
- own-row gradient is non-zero (the output still reads its own input),
- batched logits equal one-at-a-time logits (to 1e-4),
- short training at the repo's own settings beats chance clearly: mixing rows carries no
  label information, so the broken model stays at chance (~0.25) however long it trains;
  the bound 0.6 sits far from both (a correct model reaches ~1.0).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from verifylib import SEEDS, Checks, setup  # noqa: E402

setup()
import torch  # noqa: E402

import data  # noqa: E402  (the agent's data.py)
import model as model_mod  # noqa: E402
import train  # noqa: E402

SIZES = [(4, 5), (3, 7), (5, 11), (2, 13)]  # (B, T): B > 1, B != T
VAL_ACC_BOUND = 0.6
TRAIN_STEPS = 60


def cross_row_gradients(net, B, T, g):
    x = torch.randn(B, T, data.N_CHANNELS, generator=g, requires_grad=True)
    lengths = torch.randint(max(1, T // 2), T + 1, (B,), generator=g)
    lengths[0] = T  # the padded length stays T
    worst_cross, weakest_own = 0.0, float("inf")
    for i in range(B):
        x.grad = None
        net(x, lengths)[i].sum().backward()
        grad = x.grad.detach()
        others = torch.cat([grad[:i], grad[i + 1:]])
        worst_cross = max(worst_cross, others.abs().max().item())
        weakest_own = min(weakest_own, grad[i].abs().sum().item())
    with torch.no_grad():
        batched = net(x, lengths)
        single = torch.cat([net(x[i:i + 1, : int(lengths[i])], lengths[i:i + 1]) for i in range(B)])
    return worst_cross, weakest_own, (batched - single).abs().max().item()


checks = Checks()
for seed in SEEDS:
    with checks.seed(seed):
        torch.manual_seed(seed)
        g = torch.Generator().manual_seed(1000 + seed)
        cfg = train.Config(seed=seed)
        net = model_mod.GestureNet(data.N_CHANNELS, data.N_CLASSES, cfg.hidden, cfg.dropout)
        # a few training-mode passes so the BatchNorm running statistics are not the identity
        with torch.no_grad():
            for _ in range(3):
                xb, lb = data.collate(data.make_dataset(16, seed=seed + 7)[0])
                net(xb, lb)
        net.eval()
        for B, T in SIZES:
            cross, own, diff = cross_row_gradients(net, B, T, g)
            checks.check(f"cross_row_grad_is_zero[B={B},T={T}]", cross == 0.0, value=cross, bound="== 0 exactly")
            checks.check(f"own_row_grad_nonzero[B={B},T={T}]", own > 0.0, value=own, bound="> 0")
            checks.check(f"batched_equals_single[B={B},T={T}]", diff < 1e-4, value=diff, bound="< 1e-4")

        cfg = train.Config(seed=seed, steps=TRAIN_STEPS, log_every=10 ** 9)
        trained, _ = train.train(cfg)
        xs_val, y_val = data.make_dataset(300, seed=seed + 100)
        trained.eval()
        with torch.no_grad():
            preds = torch.cat([trained(*data.collate(xs_val[i:i + 50])).argmax(-1) for i in range(0, 300, 50)])
        acc = (preds == y_val).float().mean().item()
        checks.check("val_acc_above_chance_after_training", acc > VAL_ACC_BOUND, value=round(acc, 3),
                     bound=f"> {VAL_ACC_BOUND} (chance 0.25)")
checks.finish()
