"""Held-out evaluation, rendered on the fly exactly the way the chat server formats requests."""

import torch

from chatlm.data.batching import collate
from chatlm.data.sources import load_conversations
from chatlm.metrics import lm_loss, stop_rate, token_accuracy
from chatlm.templates import ChatTemplate


class Evaluator:
    def __init__(self, cfg, tok):
        self.cfg, self.tok = cfg, tok
        self.conversations = load_conversations(cfg.data.val, cfg.data.min_reply_chars)

    def batch(self):
        template = ChatTemplate.load(self.cfg.data.template)
        examples = [template.encode(m, self.tok, self.cfg.data.max_len) for m in self.conversations]
        return collate(examples, self.tok.pad_id)

    @torch.no_grad()
    def evaluate(self, model):
        was_training = model.training
        model.eval()
        x, y = self.batch()
        logits = model(x)
        model.train(was_training)
        return {"loss": lm_loss(logits, y).item(), "acc": token_accuracy(logits, y),
                "stop": stop_rate(logits, y, self.tok.eos_id)}

    def prompt(self, index=0):
        """The first val conversation without its reply: what the server would send the model."""
        messages = [m for m in self.conversations[index] if m["role"] != "assistant"]
        return ChatTemplate.load(self.cfg.data.template).generation_prompt(messages, self.tok)
