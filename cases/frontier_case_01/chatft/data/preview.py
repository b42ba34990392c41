"""Print a few training conversations as the model sees them, replies in [brackets].

    python -m chatft.data.preview --config configs/sampling.toml [-n 3]
"""

import argparse
import sys

from chatft.config import load_config
from chatft.data.dataset import SFTDataset
from chatft.data.tasks import make_conversations
from chatft.template import reply_spans
from chatft.tokenizer import CharTokenizer


def bracket_replies(tok, example):
    """The decoded conversation with every reply span wrapped in [ ]."""
    ids, out, last = example["input_ids"], [], 0
    for start, end in reply_spans(example["reply_mask"]):
        out += [tok.decode(ids[last:start]), "[", tok.decode(ids[start:end]), "]"]
        last = end
    out.append(tok.decode(ids[last:]))
    return "".join(out)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config")
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    parser.add_argument("-n", type=int, default=3)
    args = parser.parse_args(argv)
    cfg = load_config(args.config, args.overrides)
    tok = CharTokenizer()
    tasks = tuple(t.strip() for t in cfg.data.tasks.split(",") if t.strip())
    convs = make_conversations(args.n, cfg.train.seed, tasks, cfg.data.max_turns)
    data = SFTDataset(convs, tok, cfg.data.block_size)
    for i, ex in enumerate(data.examples):
        print(f"--- {i} ({len(ex['input_ids'])} tokens, {sum(ex['reply_mask'])} reply tokens)")
        print(bracket_replies(tok, ex))


if __name__ == "__main__":
    main(sys.argv[1:])
