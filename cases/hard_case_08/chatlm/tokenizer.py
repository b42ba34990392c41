"""Character-level tokenizer: printable ASCII plus newline, and a few special tokens.

BOS/EOS placement belongs to the chat template (templates/), which is why ``add_bos`` and
``add_eos`` are off in tokenizer.json; they exist for plain-text pretraining runs, where
``encode(text)`` wraps a document on its own.
"""

import hashlib
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

    def fingerprint(self):
        """Identifies everything that decides how text becomes ids."""
        return hashlib.sha256(json.dumps(self.config, sort_keys=True).encode()).hexdigest()[:16]

    def encode(self, text, allow_special=False, add_special_tokens=True):
        """Text -> ids. With allow_special, literal '<s>' etc. in the text become single tokens;
        add_special_tokens applies the add_bos/add_eos settings of the config."""
        ids = []
        parts = self._special_re.split(text) if allow_special else [text]
        for part in parts:
            if allow_special and part in self.specials:
                ids.append(self.stoi[part])
            else:
                ids.extend(self.stoi[c] for c in part if c in self.stoi)
        if add_special_tokens and self.config.get("add_bos"):
            ids.insert(0, self.bos_id)
        if add_special_tokens and self.config.get("add_eos"):
            ids.append(self.eos_id)
        return ids

    def decode(self, ids, skip_special=False):
        skip = {self.pad_id} | ({self.bos_id, self.eos_id} if skip_special else set())
        return "".join(self.itos[i] for i in ids if i not in skip)
