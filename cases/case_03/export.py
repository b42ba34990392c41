"""Package a trained encoder for the glyph lookup service.

Once the hyperparameters are chosen, the served bank indexes every labelled glyph we have:
pass the full GlyphSet, not a split.
"""

import torch

from model import MemoryBank


@torch.no_grad()
def export(encoder, norm, glyphs, n_classes, path="glyph_lookup.pt"):
    encoder.eval()
    keys = encoder(norm(glyphs.images))
    bank = MemoryBank(keys, glyphs.labels, torch.arange(len(glyphs)), n_classes)
    torch.save({"encoder": encoder.state_dict(), "mean": norm.mean, "std": norm.std,
                "keys": bank.keys, "labels": bank.labels}, path)
    return path
