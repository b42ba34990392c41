"""Stage 2: a character vocabulary with a single boundary token ('.', id 0), as in makemore."""

import json
from pathlib import Path

BOUNDARY = "."


class CharTokenizer:
    def __init__(self, chars):
        chars = sorted(set(chars) - {BOUNDARY})
        self.itos = [BOUNDARY] + chars
        self.stoi = {c: i for i, c in enumerate(self.itos)}

    @classmethod
    def from_alphabet(cls, alphabet="abcdefghijklmnopqrstuvwxyz"):
        """A fixed vocabulary, so every seed and source shares the same ids."""
        return cls(alphabet)

    @property
    def vocab_size(self):
        return len(self.itos)

    def encode(self, word):
        try:
            return [self.stoi[c] for c in word]
        except KeyError as exc:
            raise ValueError(f"character {exc.args[0]!r} of {word!r} is not in the vocabulary") from None

    def decode(self, ids):
        return "".join(self.itos[i] for i in ids if i != 0)

    def save(self, path):
        Path(path).write_text(json.dumps({"itos": self.itos}))

    @classmethod
    def load(cls, path):
        return cls(json.loads(Path(path).read_text())["itos"])
