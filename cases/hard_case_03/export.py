"""Package a trained encoder for the glyph lookup service.

Once the hyperparameters are chosen, the served bank indexes every labelled glyph we have: the
full GlyphSet the splits were drawn from, not the training split.
"""

from pathlib import Path

import torch

from memory import MemoryBank, base_set, embed_rows


@torch.no_grad()
def export(encoder, norm, any_split, n_classes, tau, path):
    """Write the encoder, the normalizer statistics and a bank over all labelled glyphs to ``path``."""
    glyphs = base_set(any_split)
    keys, labels, ids = embed_rows(encoder, norm, glyphs)
    bank = MemoryBank(keys, labels, ids, n_classes)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    torch.save({"encoder": encoder.state_dict(), "encoder_class": type(encoder).__name__, **norm.state(),
                "keys": bank.keys, "labels": bank.labels, "tau": tau, "n_classes": n_classes}, path)
    return path, len(bank)


def load_service(path, encoder):
    """(lookup function image batch -> predicted classes, bank size) from an exported file."""
    blob = torch.load(path, weights_only=True)
    encoder.load_state_dict(blob["encoder"])
    encoder.eval()
    ids = torch.arange(len(blob["labels"]))
    bank = MemoryBank(blob["keys"], blob["labels"], ids, blob["n_classes"])

    @torch.no_grad()
    def lookup(images):
        z = encoder((images - blob["mean"]) / blob["std"])
        return bank.log_probs(z, blob["tau"]).argmax(dim=-1)

    return lookup, len(bank)
