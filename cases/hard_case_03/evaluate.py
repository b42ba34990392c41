"""Evaluate an exported lookup service on a fresh draw of glyphs (new shifts, contrast and noise).

Usage: python evaluate.py PATH [--seed S] [--per-class N] [--show N]

The exported bank holds every labelled glyph of the training draw; a fresh draw (another seed)
is what the service will meet, so this is the number to quote for the service.
"""

import argparse
import sys

import torch

from encoders import ConvEncoder, MLPEncoder
from glyphs import make_glyphs, render
from metrics import most_confused


def knn_accuracy(keys, labels, queries, query_labels, k=5):
    """Hard k-nearest-neighbour majority vote (cosine), for comparison with the soft vote."""
    sims = queries @ keys.T
    top = sims.topk(k, dim=-1).indices
    votes = labels[top]
    pred = torch.mode(votes, dim=-1).values
    return (pred == query_labels).float().mean().item()


def main(argv):
    torch.set_num_threads(1)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--seed", type=int, default=1000, help="seed of the fresh draw")
    parser.add_argument("--per-class", type=int, default=5)
    parser.add_argument("--show", type=int, default=0, help="render this many misread glyphs")
    args = parser.parse_args(argv)
    blob = torch.load(args.path, weights_only=True)
    encoder = {"ConvEncoder": ConvEncoder, "MLPEncoder": MLPEncoder}[blob["encoder_class"]]()
    encoder.load_state_dict(blob["encoder"])
    encoder.eval()
    from export import load_service

    lookup, size = load_service(args.path, encoder)
    images, labels = make_glyphs(blob["n_classes"], args.per_class, seed=args.seed)
    pred = lookup(images)
    acc = (pred == labels).float().mean().item()
    with torch.no_grad():
        z = encoder((images - blob["mean"]) / blob["std"])
    knn = knn_accuracy(blob["keys"], blob["labels"], z, labels)
    print(f"bank of {size} glyphs; fresh draw of {len(labels)} images (seed {args.seed}): "
          f"soft-vote acc {acc:.3f}, 5-NN acc {knn:.3f}")
    onehot = torch.nn.functional.one_hot(pred, blob["n_classes"]).float().clamp_min(1e-12).log()
    for true, got, count in most_confused(onehot, labels, 5):
        print(f"  class {true:3d} read as {got:3d}: {count}x")
    shown = 0
    for i in torch.nonzero(pred != labels).flatten().tolist()[: args.show]:
        print(f"image {i}: class {int(labels[i])}, read as {int(pred[i])}")
        print(render(images[i]))
        shown += 1


if __name__ == "__main__":
    main(sys.argv[1:])
