"""case_07 verifier: validation must run the model in eval mode, training must run it in
train mode, and validation must not change the model.

Every outermost module call is watched with global forward hooks while the agent's
train.train() runs (two epochs, the final re-validation included):
- a call with grad disabled is a validation/inference forward. All submodules must have
  training == False; the forward is repeated on the same batch inside the hook and the two
  outputs must agree to 1e-7 (dropout 0.3 in train mode differs by O(1) logits, and a
  reseeded validation pass still draws fresh masks for a back-to-back repeat); every buffer
  (BatchNorm running_mean / running_var / num_batches_tracked) must be unchanged by it.
- a call with grad enabled is a training forward. All submodules must have training == True
  (the mode is restored after validation, so dropout and batch statistics stay on while
  training; deleting the mode switch leaves epochs 2+ training in eval mode).
These are invariants the bug cannot meet: in train mode BatchNorm updates its running stats
on every forward, and the model does contain dropout and BatchNorm (checked, so removing
dropout cannot sidestep the checks either: BatchNorm still updates in train mode).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from verifylib import SEEDS, Checks, setup  # noqa: E402

setup()
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook  # noqa: E402

import train  # noqa: E402  (the agent's train.py)

REPEAT_TOL = 1e-7
EPOCHS = 2


def _tensors(out):
    if torch.is_tensor(out):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _tensors(o)]
    if isinstance(out, dict):
        return [t for o in out.values() for t in _tensors(o)]
    return []


class Watch:
    def __init__(self):
        self.reset()

    def reset(self):
        self.depth, self.reentrant, self.frames = 0, False, []
        self.val = {"n": 0, "not_eval": 0, "buffers_changed": 0, "max_repeat_diff": 0.0, "has_dropout": 0, "has_bn": 0}
        self.tr = {"n": 0, "not_train": 0}

    def pre(self, module, args):
        if self.depth == 0 and not self.reentrant:
            if torch.is_grad_enabled():
                self.tr["n"] += 1
                self.tr["not_train"] += int(not all(m.training for m in module.modules()))
                self.frames.append(None)
            else:
                self.frames.append({n: b.detach().clone() for n, b in module.named_buffers()})
        self.depth += 1

    def post(self, module, args, out):
        self.depth -= 1
        if self.depth != 0 or self.reentrant:
            return
        before = self.frames.pop() if self.frames else None
        if before is None:
            return
        v = self.val
        v["n"] += 1
        mods = list(module.modules())
        v["not_eval"] += int(any(m.training for m in mods))
        v["has_dropout"] += int(any(isinstance(m, nn.Dropout) and m.p > 0 for m in mods))
        v["has_bn"] += int(any(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in mods))
        after = dict(module.named_buffers())
        changed = set(before) != set(after) or any(not torch.equal(before[n], after[n]) for n in before)
        v["buffers_changed"] += int(changed)
        self.reentrant = True
        try:
            again = module(*args)
        finally:
            self.reentrant = False
        for a, b in zip(_tensors(out), _tensors(again)):
            diff = (a.detach().double() - b.detach().double()).abs().max().item() if a.numel() else 0.0
            v["max_repeat_diff"] = max(v["max_repeat_diff"], diff)


watch = Watch()
register_module_forward_pre_hook(watch.pre)
register_module_forward_hook(watch.post, always_call=True)

checks = Checks()
for seed in SEEDS:
    with checks.seed(seed):
        watch.reset()
        cfg = train.Config(seed=seed, epochs=EPOCHS, out=f"verify_ckpt_{seed}.pt")
        train.train(cfg)
        v, t = dict(watch.val), dict(watch.tr)
        checks.check("validation_forwards_seen", v["n"] >= EPOCHS and t["n"] > 0,
                     value={"validation": v["n"], "training": t["n"]}, bound=f">= {EPOCHS} validation, > 0 training")
        checks.check("model_has_dropout_and_batchnorm", v["n"] > 0 and v["has_dropout"] == v["n"] and v["has_bn"] == v["n"],
                     value={"with_dropout": v["has_dropout"], "with_batchnorm": v["has_bn"], "of": v["n"]},
                     bound="every validated model")
        checks.check("validation_in_eval_mode", v["n"] > 0 and v["not_eval"] == 0,
                     value=f"{v['not_eval']} of {v['n']} validation forwards had training modules", bound="0")
        checks.check("repeated_validation_agrees", v["n"] > 0 and v["max_repeat_diff"] <= REPEAT_TOL,
                     value=v["max_repeat_diff"], bound=f"<= {REPEAT_TOL:g}")
        checks.check("validation_leaves_buffers_unchanged", v["n"] > 0 and v["buffers_changed"] == 0,
                     value=f"{v['buffers_changed']} of {v['n']} validation forwards changed buffers", bound="0")
        checks.check("training_mode_restored_for_training", t["n"] > 0 and t["not_train"] == 0,
                     value=f"{t['not_train']} of {t['n']} training forwards had eval-mode modules", bound="0")
        Path(cfg.out).unlink(missing_ok=True)
checks.finish()
