"""The ExecuTorch table of BENCHMARKS.md: ExecuTorch's default memory planning against
memplan's pass, on real models with random weights and full-size inputs.

    python crates/memplan-py/scripts/executorch_table.py [--time-limit S] [MODEL ...]

Needs `pip install "./crates/memplan-py[executorch]"`. Each model goes through
torch.export -> to_edge -> to_executorch twice (ExecuTorch's default planning, then
memplan's pass with ExecuTorch's Verifier on); both programs run on ExecuTorch's runtime
with the same input and are compared with eager PyTorch. Prints a markdown table (one row
per model, arena sizes in bytes), how many plans are proven optimal, and the models that
failed and why.
"""

import argparse
import copy
import sys
from pathlib import Path
import time
import traceback

import torch
import torchvision
from executorch.exir import ExecutorchBackendConfig, to_edge
from executorch.exir.passes import MemoryPlanningPass
from executorch.runtime import Runtime

import memplan
import memplan.executorch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import results_file  # noqa: E402

tv = torchvision.models
seg = torchvision.models.segmentation


class TinyGPT(torch.nn.Module):
    """A small decoder-only language model: token and position embeddings, causal
    self-attention blocks (pre-norm), a language-model head."""

    def __init__(self, vocab=4096, d=256, heads=4, layers=4, seq=128):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Embedding(seq, d)
        block = torch.nn.TransformerEncoderLayer(
            d, heads, 4 * d, dropout=0.0, batch_first=True, norm_first=True
        )
        self.blocks = torch.nn.TransformerEncoder(block, layers, enable_nested_tensor=False)
        self.norm = torch.nn.LayerNorm(d)
        self.head = torch.nn.Linear(d, vocab, bias=False)
        self.register_buffer("mask", torch.nn.Transformer.generate_square_subsequent_mask(seq))

    def forward(self, ids):
        x = self.tok(ids) + self.pos.weight[: ids.shape[1]]
        x = self.blocks(x, mask=self.mask, is_causal=True)
        return self.head(self.norm(x))


def encoder():
    layer = torch.nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True)
    return torch.nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)


class Segmentation(torch.nn.Module):
    """torchvision's segmentation models return a dict; ExecuTorch wants tensors."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


IMAGE = (1, 3, 224, 224)
MODELS = {
    "resnet18": (lambda: tv.resnet18(), IMAGE),
    "resnet50": (lambda: tv.resnet50(), IMAGE),
    "mobilenet_v2": (lambda: tv.mobilenet_v2(), IMAGE),
    "mobilenet_v3_small": (lambda: tv.mobilenet_v3_small(), IMAGE),
    "efficientnet_b0": (lambda: tv.efficientnet_b0(), IMAGE),
    "densenet121": (lambda: tv.densenet121(), IMAGE),
    "squeezenet1_1": (lambda: tv.squeezenet1_1(), IMAGE),
    "shufflenet_v2_x1_0": (lambda: tv.shufflenet_v2_x1_0(), IMAGE),
    "mnasnet1_0": (lambda: tv.mnasnet1_0(), IMAGE),
    "regnet_y_400mf": (lambda: tv.regnet_y_400mf(), IMAGE),
    "googlenet": (lambda: tv.googlenet(aux_logits=False, init_weights=True), IMAGE),
    "convnext_tiny": (lambda: tv.convnext_tiny(), IMAGE),
    "vit_b_16": (lambda: tv.vit_b_16(), IMAGE),
    "swin_t": (lambda: tv.swin_t(), IMAGE),
    "lraspp_mobilenet_v3_large": (
        lambda: Segmentation(seg.lraspp_mobilenet_v3_large(weights_backbone=None)), IMAGE),
    "deeplabv3_mobilenet_v3_large": (
        lambda: Segmentation(seg.deeplabv3_mobilenet_v3_large(weights_backbone=None, aux_loss=False)),
        IMAGE),
    "transformer_encoder": (encoder, (1, 128, 256)),
    "tiny_gpt": (TinyGPT, "tokens"),
}


def _input(shape):
    if shape == "tokens":
        return torch.randint(0, 4096, (1, 128))
    return torch.randn(*shape)


def _arena(program):
    sizes = program.executorch_program.execution_plan[0].non_const_buffer_sizes
    return sum(sizes)


def _error(program, x, expected):
    method = Runtime.get().load_program(program.buffer).load_method("forward")
    got = method.execute([x])[0]
    return ((got - expected).abs().max() / expected.abs().max()).item()


def no_zero_weights(model):
    """Weights that start at zero (vit_b_16's classifier head) would make every output 0
    and the comparison with eager PyTorch empty: draw them at random like the others."""
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2 and not p.any():
                torch.nn.init.normal_(p, std=0.02)
    return model


def measure(name, time_limit):
    torch.manual_seed(0)
    make, shape = MODELS[name]
    model = no_zero_weights(make().eval())
    x = _input(shape)
    with torch.no_grad():
        expected = model(x)
        edge = to_edge(torch.export.export(model, (x,)))
    default = copy.deepcopy(edge).to_executorch(
        ExecutorchBackendConfig(memory_planning_pass=MemoryPlanningPass())
    )
    pass_ = memplan.executorch.memory_planning_pass(time_limit=time_limit, verify=True)
    ours = edge.to_executorch(ExecutorchBackendConfig(memory_planning_pass=pass_))
    reports = pass_.memory_planning_algo.algo_list[0].reports
    errors = (_error(default, x, expected), _error(ours, x, expected))
    return {
        "default": _arena(default),
        "memplan": _arena(ours),
        "max_load": sum(r.max_load for r in reports),
        "optimal": all(r.optimal for r in reports),
        "planner": "+".join(r.planner for r in reports),
        "buffers": sum(r.buffers for r in reports),
        "seconds": sum(r.elapsed for r in reports),
        "error": max(errors),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=list(MODELS))
    parser.add_argument("--time-limit", type=float, default=1.0)
    parser.add_argument("--out", metavar="FILE",
                        help="also write the output to FILE (benchmarks/results/executorch.md), "
                        "under a line naming the command")
    args = parser.parse_args()
    if args.out:
        sys.stdout = results_file.Tee(sys.stdout)
    print("| model | buffers | default | memplan | max load | saving | saved bytes "
          "| planner | time | error |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|")
    failures = []
    optimal = 0
    for name in args.models:
        try:
            r = measure(name, args.time_limit)
        except Exception as e:  # report and go on: the table lists what failed and why
            failures.append((name, f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"))
            traceback.print_exc(file=sys.stderr)
            continue
        saving = r["default"] - r["memplan"]
        optimal += r["optimal"]
        print(
            f"| {name} | {r['buffers']:,} | {r['default']:,} | {r['memplan']:,} | "
            f"{r['max_load']:,} | {100 * saving / r['default']:.1f}% | {saving:,} | "
            f"{r['planner']} | "
            f"{r['seconds'] * 1000:.0f} ms | {r['error']:.1e} |",
            flush=True,
        )
    ran = len(args.models) - len(failures)
    print(f"\nproven optimal (arena = max load): {optimal} of {ran}")
    for name, why in failures:
        print(f"failed: {name}: {why}")
    if args.out:
        sys.stdout.save(args.out)


if __name__ == "__main__":
    main()
