"""Character-level tokenizer with a handful of chat control tokens.

No external vocab files: every printable character we use is listed below, and the
control tokens are matched as whole strings before falling back to characters.
"""

import string

SPECIALS = ["<pad>", "<|user|>", "<|assistant|>", "<|end|>"]
CHARS = string.ascii_lowercase + string.digits + " .,:?!'-\n"


class CharTokenizer:
    def __init__(self):
        self.itos = SPECIALS + list(CHARS)
        self.stoi = {s: i for i, s in enumerate(self.itos)}
        self.pad_id = self.stoi["<pad>"]
        self.user_id = self.stoi["<|user|>"]
        self.assistant_id = self.stoi["<|assistant|>"]
        self.end_id = self.stoi["<|end|>"]

    @property
    def vocab_size(self):
        return len(self.itos)

    def encode(self, text):
        ids, i = [], 0
        while i < len(text):
            for sp in SPECIALS:
                if text.startswith(sp, i):
                    ids.append(self.stoi[sp])
                    i += len(sp)
                    break
            else:
                ids.append(self.stoi[text[i]])
                i += 1
        return ids

    def decode(self, ids):
        return "".join(self.itos[int(i)] for i in ids)
