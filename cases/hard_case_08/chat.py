"""Talk to a trained checkpoint from the command line.

    python chat.py runs/sft-chat-<fingerprint>.pt "how many m in 3 km?" [--system "Be terse."] [--temperature 0.8]
"""

import argparse
import sys

import torch

from chatlm import checkpoint
from chatlm.sampling import generate, sequence_logprob


def reply(path, question, system=None, temperature=0.0, max_tokens=60, seed=0):
    model, tok, template, _ = checkpoint.load(path)
    messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": question}]
    prompt = template.generation_prompt(messages, tok)
    gen = torch.Generator().manual_seed(seed)
    new = generate(model, prompt, max_tokens, stop_ids={tok.eos_id}, temperature=temperature, generator=gen)
    return tok.decode(new, skip_special=True), sequence_logprob(model, prompt + new) if new else float("nan")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint")
    parser.add_argument("question")
    parser.add_argument("--system", default=None)
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--max-tokens", type=int, default=60)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    ckpt = torch.load(args.checkpoint)
    print(f"checkpoint step {ckpt['step']}, template {ckpt['template_fingerprint']}, "
          f"config {checkpoint.run_fingerprint(checkpoint.load(args.checkpoint)[3])}")
    text, logp = reply(args.checkpoint, args.question, args.system, args.temperature, args.max_tokens)
    print(f"assistant: {text!r} (log p {logp:.1f})")


if __name__ == "__main__":
    main(sys.argv[1:])
