import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d_model, n_head, dropout=0.0):
        super().__init__()
        self.n_head, self.dropout = n_head, dropout
        self.ln1 = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=-1)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        att = F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                             dropout_p=self.dropout if self.training else 0.0)
        x = x + self.proj(att.transpose(1, 2).reshape(B, T, C))
        return x + self.mlp(self.ln2(x))


class CharGPT(nn.Module):
    """A small GPT over the character vocabulary."""

    def __init__(self, vocab_size, d_model=48, n_layer=1, n_head=4, block_size=128, dropout=0.0):
        super().__init__()
        self.block_size = block_size
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Embedding(block_size, d_model)
        self.blocks = nn.Sequential(*[Block(d_model, n_head, dropout) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    @classmethod
    def from_config(cls, cfg, vocab_size):
        m = cfg.model
        return cls(vocab_size, m.d_model, m.n_layer, m.n_head, cfg.data.max_len, m.dropout)

    def forward(self, ids):
        pos = torch.arange(ids.size(1), device=ids.device)
        x = self.blocks(self.tok_emb(ids) + self.pos_emb(pos))
        return self.head(self.ln_f(x))
