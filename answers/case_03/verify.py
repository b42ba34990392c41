"""case_03 verifier: validation predictions must not have seen validation labels.

Three runs of the repo's own train() per seed, each probing the pipeline it really uses:

- as shipped: the train/val split must be non-empty and disjoint by content hash, and no
  validation row may sit in the memory bank the predictions are made from (a validation
  embedding exactly equal to a bank key);
- the same data with only the validation labels permuted: validation predictions must be
  identical (max |delta log p| <= 1e-6); they may depend on training rows only;
- every label shuffled at the source, on a larger set (1500 validation rows): accuracy
  against the shuffled labels must stay at chance, <= 2/C. Shuffled labels carry no signal,
  so anything above that is labels travelling from validation into the predictions.
"""

import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from verifylib import SEEDS, Checks, setup  # noqa: E402

setup()
import torch  # noqa: E402

import data  # noqa: E402  (the agent's data.py)
import train  # noqa: E402  (the agent's train.py)

STEPS = 10
INVARIANCE_TOL = 1e-6
MATCH_TOL = 1e-5
_make_glyphs = data.make_glyphs


def relabel(fn):
    """Run train() on the shipped images with labels rewritten by fn(labels)."""
    def patched(*args, **kwargs):
        images, labels = _make_glyphs(*args, **kwargs)
        return images, fn(labels.clone())
    return patched


def run(cfg, relabel_fn=None):
    train.make_glyphs = relabel(relabel_fn) if relabel_fn else _make_glyphs
    try:
        encoder, norm, bank, _ = train.train(cfg)
        train_set, val_set = train.build_splits(cfg)
    finally:
        train.make_glyphs = _make_glyphs
    xs = torch.stack([val_set[i][0] for i in range(len(val_set))]) if len(val_set) else None
    ys = torch.stack([torch.as_tensor(val_set[i][1]) for i in range(len(val_set))]) if len(val_set) else None
    encoder.eval()
    with torch.no_grad():
        z = encoder(norm(xs)) if xs is not None else None
        logp = bank.log_probs(z, cfg.tau) if z is not None else None
    return {"train_set": train_set, "val_set": val_set, "bank": bank, "z": z, "logp": logp, "y": ys}


def digest(subset):
    return {hashlib.sha1(subset[i][0].numpy().tobytes()).hexdigest() for i in range(len(subset))}


checks = Checks()
for seed in SEEDS:
    with checks.seed(seed):
        cfg = train.Config(seed=seed, steps=STEPS)
        base = run(cfg)
        n_val = len(base["val_set"])
        checks.check("val_nonempty", n_val > 0, value=n_val, bound="> 0")
        overlap = len(digest(base["train_set"]) & digest(base["val_set"]))
        checks.check("split_disjoint_by_content_hash", overlap == 0, value=overlap, bound="0 shared images")
        dist = torch.cdist(base["z"], base["bank"].keys.float(),
                           compute_mode="donot_use_mm_for_euclid_dist").min(dim=1).values
        in_bank = int((dist < MATCH_TOL).sum())
        checks.check("bank_holds_no_val_row", in_bank == 0, value={"val_rows_in_bank": in_bank, "n_val": n_val},
                     bound="0")

        val_idx = torch.as_tensor(base["val_set"].indices)
        perm = val_idx[torch.randperm(len(val_idx), generator=torch.Generator().manual_seed(100 + seed))]

        def permute_val(labels, val_idx=val_idx, perm=perm):
            labels[val_idx] = labels[perm]
            return labels

        moved = run(cfg, permute_val)
        assert torch.equal(torch.as_tensor(moved["val_set"].indices), val_idx), "split changed with the labels"
        delta = (moved["logp"] - base["logp"]).abs().max().item()
        checks.check("val_predictions_ignore_val_labels", delta <= INVARIANCE_TOL, value=delta,
                     bound=f"<= {INVARIANCE_TOL}")

        big = train.Config(seed=seed, steps=0, per_class=30, val_frac=0.5)
        shuffled = run(big, lambda labels, s=seed: labels[torch.randperm(
            len(labels), generator=torch.Generator().manual_seed(200 + s))])
        acc = (shuffled["logp"].argmax(-1) == shuffled["y"]).float().mean().item()
        bound = 2 / big.n_classes
        checks.check("shuffled_label_accuracy_at_chance", acc <= bound,
                     value={"acc": round(acc, 4), "n_val": len(shuffled["y"])}, bound=f"<= {bound}")
checks.finish()
