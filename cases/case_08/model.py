import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d_model, n_head):
        super().__init__()
        self.n_head = n_head
        self.ln1 = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=-1)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        att = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(att.transpose(1, 2).reshape(B, T, C))
        return x + self.mlp(self.ln2(x))


class CharLM(nn.Module):
    """A small GPT over the character vocabulary."""

    def __init__(self, vocab_size, d_model=64, n_layer=2, n_head=4, block_size=128):
        super().__init__()
        self.block_size = block_size
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Embedding(block_size, d_model)
        self.blocks = nn.Sequential(*[Block(d_model, n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, ids):
        pos = torch.arange(ids.size(1), device=ids.device)
        x = self.blocks(self.tok_emb(ids) + self.pos_emb(pos))
        return self.head(self.ln_f(x))

    @torch.no_grad()
    def generate(self, prompt_ids, max_new_tokens, stop_id=None):
        ids = list(prompt_ids)
        new = []
        for _ in range(max_new_tokens):
            ctx = torch.tensor([ids[-self.block_size:]])
            nxt = self(ctx)[0, -1].argmax().item()
            if nxt == stop_id:
                break
            ids.append(nxt)
            new.append(nxt)
        return new
