"""A small Llama-style decoder with a KV cache, for the ExecuTorch tests, docs and
benchmarks: RMSNorm, rotary position embeddings, SwiGLU, and per layer a key and a value
cache held in registered buffers and updated in place (``index_put_``), as ExecuTorch's
LLM examples do.

``Decoder.forward(tokens, input_pos)`` takes token ids ``(1, T)`` and their positions
``(T,)``; it writes the new keys and values into the caches at ``input_pos`` and attends
over the whole cache under a causal mask built from ``input_pos``, so its shapes depend
on ``T`` only (no data-dependent shapes). ``export_methods`` exports it twice, as a
``prefill`` method (``T`` dynamic up to ``max_prefill``) and a ``decode`` method
(``T = 1``), which share the caches when lowered with ``share_mutable_buffers=True``.

Run as a script, it prints each method's arena with memplan's pass, without and with
``in_place=True`` (issue 45: the caches' updates and write-back outputs inside the
caches, pointwise ops over their inputs), each method its own program, prefill of 8
tokens:

    python crates/memplan-py/scripts/kv_decoder.py             # BENCHMARKS §14's decoder
    python crates/memplan-py/scripts/kv_decoder.py --small     # Decoder()'s defaults
"""

import argparse
import copy

import torch

#: The decoder of BENCHMARKS §14 and issue 45: 4 layers, d_model 256, caches of 128
#: positions (``Decoder()``'s defaults are the small one the tests use).
BENCHMARK = dict(vocab=512, d=256, heads=4, hidden=688, layers=4, max_len=128)


class RMSNorm(torch.nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + self.eps) * self.weight


def _rotate(x, cos, sin):
    """Rotary embedding on the last dimension, as pairs (first half, second half)."""
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)


class Layer(torch.nn.Module):
    def __init__(self, d, heads, hidden, max_len):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.attn_norm = RMSNorm(d)
        self.q = torch.nn.Linear(d, d, bias=False)
        self.k = torch.nn.Linear(d, d, bias=False)
        self.v = torch.nn.Linear(d, d, bias=False)
        self.o = torch.nn.Linear(d, d, bias=False)
        self.mlp_norm = RMSNorm(d)
        self.gate = torch.nn.Linear(d, hidden, bias=False)
        self.up = torch.nn.Linear(d, hidden, bias=False)
        self.down = torch.nn.Linear(hidden, d, bias=False)
        self.register_buffer("k_cache", torch.zeros(1, heads, max_len, self.dh))
        self.register_buffer("v_cache", torch.zeros(1, heads, max_len, self.dh))

    def forward(self, x, cos, sin, input_pos, mask):
        b, t, d = x.shape
        h = self.attn_norm(x)
        q = self.q(h).view(b, t, self.heads, self.dh).transpose(1, 2)
        k = self.k(h).view(b, t, self.heads, self.dh).transpose(1, 2)
        v = self.v(h).view(b, t, self.heads, self.dh).transpose(1, 2)
        q, k = _rotate(q, cos, sin), _rotate(k, cos, sin)
        self.k_cache[:, :, input_pos] = k
        self.v_cache[:, :, input_pos] = v
        scores = q @ self.k_cache.transpose(2, 3) / self.dh**0.5
        scores = scores.masked_fill(~mask, float("-inf"))
        att = torch.softmax(scores, dim=-1) @ self.v_cache
        x = x + self.o(att.transpose(1, 2).reshape(b, t, d))
        h = self.mlp_norm(x)
        return x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))


class Decoder(torch.nn.Module):
    """``layers`` decoder layers of width ``d``; the caches hold ``max_len`` positions."""

    def __init__(self, vocab=512, d=64, heads=4, hidden=172, layers=2, max_len=64):
        super().__init__()
        self.max_len = max_len
        self.tok = torch.nn.Embedding(vocab, d)
        self.layers = torch.nn.ModuleList(Layer(d, heads, hidden, max_len) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.head = torch.nn.Linear(d, vocab, bias=False)
        dh = d // heads
        freq = 1.0 / (10000 ** (torch.arange(0, dh // 2).float() / (dh // 2)))
        angles = torch.arange(max_len).float()[:, None] * freq[None, :]
        self.register_buffer("cos", torch.cos(angles), persistent=False)
        self.register_buffer("sin", torch.sin(angles), persistent=False)

    def forward(self, tokens, input_pos):
        x = self.tok(tokens)
        cos, sin = self.cos[input_pos], self.sin[input_pos]
        mask = torch.arange(self.max_len)[None, :] <= input_pos[:, None]
        for layer in self.layers:
            x = layer(x, cos, sin, input_pos, mask)
        return self.head(self.norm(x))


def example_inputs(t, start=0, vocab=512, seed=0):
    """Token ids ``(1, t)`` and positions ``start .. start + t - 1``."""
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab, (1, t), generator=g), torch.arange(start, start + t)


def export_methods(model, prefill_len=8, max_prefill=None):
    """``{"prefill": ..., "decode": ...}`` exported programs of ``model``: prefill with a
    dynamic length up to ``max_prefill`` (static ``prefill_len`` when None), decode with
    one token. Both keep the caches as mutable buffers."""
    dynamic = None
    if max_prefill is not None:
        t = torch.export.Dim("t", min=2, max=max_prefill)
        dynamic = {"tokens": {1: t}, "input_pos": {0: t}}
    with torch.no_grad():
        prefill = torch.export.export(
            model, example_inputs(prefill_len), dynamic_shapes=dynamic, strict=False
        )
        decode = torch.export.export(model, example_inputs(1, start=prefill_len), strict=False)
    return {"prefill": prefill, "decode": decode}


def in_place_figures(config, prefill_len=8):
    """``{method: (bytes without in_place, bytes with it)}``, each method lowered as its
    own program by memplan's pass (every arena counted). Needs ExecuTorch."""
    from executorch.exir import ExecutorchBackendConfig, to_edge

    import memplan.executorch

    torch.manual_seed(0)
    methods = export_methods(Decoder(**config).eval(), prefill_len=prefill_len)
    out = {}
    for name, program in methods.items():
        sizes = []
        for in_place in (False, True):
            pass_ = memplan.executorch.memory_planning_pass(in_place=in_place)
            to_edge({name: copy.deepcopy(program)}).to_executorch(
                ExecutorchBackendConfig(memory_planning_pass=pass_)
            )
            sizes.append(sum(r.total for r in pass_.reports))
        out[name] = tuple(sizes)
    return out


def main():
    parser = argparse.ArgumentParser(description="in-place figures of the KV-cache decoder")
    parser.add_argument("--small", action="store_true", help="Decoder()'s default configuration")
    args = parser.parse_args()
    config = {} if args.small else BENCHMARK
    for name, (before, after) in in_place_figures(config).items():
        print(f"{name}: {before:,} -> {after:,} B ({100 * (after - before) / before:+.1f}%)")


if __name__ == "__main__":
    main()
