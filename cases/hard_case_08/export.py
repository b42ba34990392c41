"""Bundle a checkpoint for the chat server: a TorchScript model plus the tokenizer and chat
template it must be driven with, and a manifest tying them together.

    python export.py runs/sft-chat-<fingerprint>.pt [--out exports/sft-chat]
"""

import argparse
import json
import sys
from pathlib import Path

import torch

from chatlm import checkpoint
from chatlm.data.cache import fingerprint


def export(path, out_dir):
    model, tok, template, cfg = checkpoint.load(path)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    example = torch.tensor([template.generation_prompt([{"role": "user", "content": "1 km in m"}], tok)])
    traced = torch.jit.trace(model, example)
    with torch.no_grad():
        gap = (traced(example) - model(example)).abs().max().item()
    if gap > 1e-5:
        raise SystemExit(f"traced model disagrees with the checkpoint by {gap:.2e}")
    traced.save(str(out / "model.ts"))
    (out / "tokenizer.json").write_text(json.dumps(tok.config, indent=2))
    template_json = {"bos": template.bos, **{r: list(m) for r, m in template.markers.items()}}
    (out / "template.json").write_text(json.dumps(template_json, indent=2))
    manifest = {"model": "model.ts", "block_size": cfg.data.max_len, "vocab_size": tok.vocab_size,
                "tokenizer": tok.fingerprint(), "template": template.fingerprint(),
                "bundle": fingerprint((out / "model.ts").read_bytes(), tok.fingerprint(), template.fingerprint())}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return manifest


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    out = args.out or str(Path("exports") / Path(args.checkpoint).stem)
    manifest = export(args.checkpoint, out)
    print(f"exported {out}: template {manifest['template']}, tokenizer {manifest['tokenizer']}, bundle {manifest['bundle']}")


if __name__ == "__main__":
    main(sys.argv[1:])
