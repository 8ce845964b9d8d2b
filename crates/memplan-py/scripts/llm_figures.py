"""The LLM figures of docs/executorch.md: a Llama-style decoder with a KV cache
(scripts/kv_decoder.py: 4 layers, d_model 256, caches of 128 positions), exported as
"prefill" (length dynamic up to 128) and "decode" (one token) methods that share the
caches, lowered with ExecuTorch's default planning and with memplan's passes.

    python crates/memplan-py/scripts/llm_figures.py

Every program runs on ExecuTorch's runtime: prefill of 40 tokens, then 3 decode steps,
each compared with eager PyTorch. Prints one row per configuration with each method's
``non_const_buffer_sizes`` (index 0, the constants, left out).
"""

import time

import torch
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.exir import ExecutorchBackendConfig, to_edge, to_edge_transform_and_lower
from executorch.exir.banked_memory_planning import Bank, TargetMemoryMap
from executorch.exir.passes import MemoryPlanningPass
from executorch.runtime import Runtime

import kv_decoder
import memplan.executorch

KB = 1024


def model():
    torch.manual_seed(0)
    return kv_decoder.Decoder(vocab=4096, d=256, heads=4, hidden=688, layers=4, max_len=128).eval()


def lower(pass_, xnnpack=False):
    m = model()
    methods = kv_decoder.export_methods(m, prefill_len=32, max_prefill=128)
    if xnnpack:
        edge = to_edge_transform_and_lower(methods, partitioner=[XnnpackPartitioner()])
    else:
        edge = to_edge(methods)
    started = time.perf_counter()
    program = edge.to_executorch(ExecutorchBackendConfig(memory_planning_pass=pass_))
    return program, time.perf_counter() - started


def error(program):
    eager = model()
    rt = Runtime.get().load_program(program.buffer)
    prefill, decode = rt.load_method("prefill"), rt.load_method("decode")
    steps = [kv_decoder.example_inputs(40, vocab=4096)] + [
        kv_decoder.example_inputs(1, start=40 + k, vocab=4096, seed=1 + k) for k in range(3)
    ]
    worst = 0.0
    for k, (tokens, pos) in enumerate(steps):
        with torch.no_grad():
            expected = eager(tokens, pos)
        got = (prefill if k == 0 else decode).execute([tokens, pos])[0]
        worst = max(worst, ((got - expected).abs().max() / expected.abs().max()).item())
    return worst


CONFIGS = {
    "ExecuTorch default": lambda: MemoryPlanningPass(share_mutable_buffers=True),
    "memplan": lambda: memplan.executorch.memory_planning_pass(share_mutable_buffers=True),
    "memplan, fast_capacity=256K": lambda: memplan.executorch.memory_planning_pass(
        fast_capacity=256 * KB, share_mutable_buffers=True),
    "memplan banked, tcm 256K + sram 16M": lambda: memplan.executorch.banked_memory_planning_pass(
        TargetMemoryMap([Bank("tcm", 256 * KB, 1), Bank("sram", 16 << 20, 3)]),
        share_mutable_buffers=True),
    "XNNPACK + ExecuTorch default": lambda: MemoryPlanningPass(share_mutable_buffers=True),
    "XNNPACK + memplan": lambda: memplan.executorch.memory_planning_pass(share_mutable_buffers=True),
}


def main():
    print("| configuration | prefill arenas (B) | decode arenas (B) | to_executorch | error |")
    print("|---|---|---|---:|---:|")
    for name, make in CONFIGS.items():
        program, seconds = lower(make(), xnnpack=name.startswith("XNNPACK"))
        plans = {p.name: list(p.non_const_buffer_sizes)[1:]
                 for p in program.executorch_program.execution_plan}
        show = {k: " + ".join(f"{v:,}" for v in sizes) for k, sizes in plans.items()}
        print(f"| {name} | {show['prefill']} | {show['decode']} | {seconds:.1f} s "
              f"| {error(program):.1e} |", flush=True)


if __name__ == "__main__":
    main()
