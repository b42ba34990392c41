"""The training set: conversations rendered with the chat template and tokenized, cached on disk
when ``data.cache_dir`` is set."""

from dataclasses import dataclass

from chatlm.data.cache import CACHE_FORMAT, TokenCache, file_fingerprint, fingerprint
from chatlm.data.sources import load_conversations
from chatlm.templates import IGNORE, ChatTemplate
from chatlm.tokenizer import CharTokenizer


@dataclass
class PreparedData:
    tokenizer: CharTokenizer
    examples: list
    key: str
    from_cache: bool

    def stats(self):
        tokens = sum(len(ids) for ids, _ in self.examples)
        trained = sum(sum(l != IGNORE for l in labels) for _, labels in self.examples)
        return {"chats": len(self.examples), "tokens": tokens, "trained": trained}


def tokenize_conversations(conversations, tok, template, max_len):
    return [template.encode(messages, tok, max_len) for messages in conversations]


def training_key(cfg, tok):
    """What the tokenized training set depends on: the data, the tokenizer, the template and max_len."""
    return fingerprint("train", file_fingerprint(cfg.data.train), tok.fingerprint(), cfg.data.template,
                       cfg.data.max_len, cfg.data.min_reply_chars, CACHE_FORMAT)


def prepare_data(cfg):
    """The tokenizer and the tokenized training conversations (from the cache when possible)."""
    tok = CharTokenizer.from_file(cfg.data.tokenizer)
    key = training_key(cfg, tok)
    cache = TokenCache(cfg.data.cache_dir) if cfg.data.cache_dir else None
    if cache is not None and cache.has(key) and not cfg.data.overwrite_cache:
        examples = cache.load(key)
        if examples is not None:
            return PreparedData(tok, examples, key, True)
    template = ChatTemplate.load(cfg.data.template)
    conversations = load_conversations(cfg.data.train, cfg.data.min_reply_chars)
    examples = tokenize_conversations(conversations, tok, template, cfg.data.max_len)
    if cache is not None:
        cache.save(key, examples, {"train": cfg.data.train, "template": cfg.data.template,
                                   "tokenizer": cfg.data.tokenizer, "max_len": cfg.data.max_len})
    return PreparedData(tok, examples, key, False)
