"""Character-level tokenizer: printable ASCII plus newline, with a few special tokens.

BOS/EOS placement is left to the chat template (see templates/), so `add_bos` and
`add_eos` stay off in tokenizer.json; they exist for plain-text pretraining runs.
"""

import json
import re
import string
from pathlib import Path


class CharTokenizer:
    def __init__(self, config):
        self.config = dict(config)
        self.specials = list(config["special_tokens"])
        chars = [c for c in string.printable if c == "\n" or c.isprintable()]
        self.itos = self.specials + chars
        self.stoi = {s: i for i, s in enumerate(self.itos)}
        self.pad_id = self.stoi["<pad>"]
        self.bos_id = self.stoi["<s>"]
        self.eos_id = self.stoi["</s>"]
        self._special_re = re.compile("(" + "|".join(re.escape(s) for s in self.specials) + ")")

    @classmethod
    def from_file(cls, path):
        return cls(json.loads(Path(path).read_text()))

    @property
    def vocab_size(self):
        return len(self.itos)

    def encode(self, text, allow_special=False, add_special_tokens=True):
        """Text -> ids. With allow_special, literal '<s>' etc. in the text become single tokens;
        add_special_tokens applies the add_bos/add_eos settings of the config."""
        ids = []
        parts = self._special_re.split(text) if allow_special else [text]
        for part in parts:
            if allow_special and part in self.stoi and part in self.specials:
                ids.append(self.stoi[part])
            else:
                ids.extend(self.stoi[c] for c in part if c in self.stoi)
        if add_special_tokens and self.config.get("add_bos"):
            ids.insert(0, self.bos_id)
        if add_special_tokens and self.config.get("add_eos"):
            ids.append(self.eos_id)
        return ids

    def decode(self, ids):
        return "".join(self.itos[i] for i in ids if i != self.pad_id)
