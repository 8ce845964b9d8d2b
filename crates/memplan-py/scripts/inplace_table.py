"""The in-place table of BENCHMARKS.md (issue 45): memplan's ExecuTorch pass without and
with ``in_place=True``, against ExecuTorch's greedy on the same tensors and on the same
shared problem, on real models with random weights and full-size inputs; then the
KV-cache decoder of ``kv_decoder.py`` in the configuration of BENCHMARKS §14.

    python crates/memplan-py/scripts/inplace_table.py [--out FILE] [--fold] [MODEL ...]

Needs `pip install "./crates/memplan-py[executorch]"`. For each model:

- **today**: ``memory_planning_pass()`` (every tensor its own storage);
- **in place**: ``memory_planning_pass(in_place=True)``, which folds the constants too
  (``fold_constants`` is on by default with it; "folded" gives the constant bytes it
  added), and **unfolded**: ``in_place=True, fold_constants=False``;
- **greedy**, **greedy, in place**: ExecuTorch's default pass (its greedy) on the same
  graph, and on the graph with every share of ``memplan._executorch_inplace`` merged
  (``storage_base`` set before planning, one share per tensor, the first found; the
  greedy then places each tensor at its base's offset over the base's stretched life).

``--fold`` folds each model's constants first (ExecuTorch's ``constant_prop_pass``),
so that no weight is transposed at run time: without it, the transformers' peaks
(``TRANSFORMERS``) are a ``Linear``'s weight transposed at run time. The transformers
are left out unless named or ``--transformers`` is given.

Every program runs on ExecuTorch's runtime with the same input; "bitwise" says whether
the in-place program's outputs equal today's (``torch.equal``), "error" is the in-place
program's largest relative difference to eager PyTorch. "peak" names the largest tensor
live at the in-place plan's peak (node's operator and bytes).

The decoder rows: prefill (8 tokens) and decode (1 token), each its own program, today
and in place; then the runs: 10 steps of decode alone, and prefill then 10 decode steps
with ``share_mutable_buffers=True`` (with and without a fast memory of 256 KB), each
against eager PyTorch and bitwise against the program without sharing. The table is
printed and written to ``--out`` (default ``benchmarks/results/executorch_inplace.md``).
"""

import argparse
import copy
import datetime
import shlex
import subprocess
import sys
import time
import traceback
from pathlib import Path

import torch
import torchvision
from executorch.exir import EdgeProgramManager, ExecutorchBackendConfig, to_edge
from executorch.exir.memory_planning import update_all_tensors_lifetime
from executorch.exir.passes import MemoryPlanningPass
from executorch.exir.passes.constant_prop_pass import constant_prop_pass
from executorch.runtime import Runtime

import memplan
import memplan.executorch
from memplan import _executorch_inplace as inplace

sys.path.insert(0, str(Path(__file__).resolve().parent))
import executorch_table  # noqa: E402
import kv_decoder  # noqa: E402

tv = torchvision.models
ROOT = Path(__file__).resolve().parents[3]

MODELS = {
    "mobilenet_v2": (lambda: tv.mobilenet_v2(), 224),
    "resnet50": (lambda: tv.resnet50(), 224),
    "densenet121": (lambda: tv.densenet121(), 224),
    "squeezenet1_1": (lambda: tv.squeezenet1_1(), 224),
    "inception_v3": (lambda: tv.inception_v3(aux_logits=False, init_weights=True), 299),
    "googlenet": (lambda: tv.googlenet(aux_logits=False, init_weights=True), 224),
    # Beyond the six.
    "resnet18": (lambda: tv.resnet18(), 224),
    "mobilenet_v3_small": (lambda: tv.mobilenet_v3_small(), 224),
    "efficientnet_b0": (lambda: tv.efficientnet_b0(), 224),
    "shufflenet_v2_x1_0": (lambda: tv.shufflenet_v2_x1_0(), 224),
    "mnasnet0_5": (lambda: tv.mnasnet0_5(), 224),
    "mnasnet1_0": (lambda: tv.mnasnet1_0(), 224),
    "regnet_y_400mf": (lambda: tv.regnet_y_400mf(), 224),
}

#: Transformers (issue 50), from the ExecuTorch table's models: (model, input).
TRANSFORMERS = {
    name: executorch_table.MODELS[name]
    for name in ("convnext_tiny", "vit_b_16", "swin_t", "transformer_encoder", "tiny_gpt")
}

#: BENCHMARKS §14's decoder: 4 layers, d_model 256, caches of 128 positions.
DECODER = kv_decoder.BENCHMARK


class MergedGreedy(MemoryPlanningPass):
    """ExecuTorch's default pass (its greedy) on the shared problem: before planning,
    every share ``find_shares`` lists is merged as ``storage_base`` (a tensor takes at
    most one share, and a storage is taken by at most one tensor)."""

    def run(self, graph_module, graph_signature=None):
        # The lifetimes the shares need (the pass computes them again, from the allocs).
        update_all_tensors_lifetime(graph_module, graph_signature)
        taken_buffers, taken_targets = set(), set()
        for share in inplace.find_shares(graph_module, graph_signature):
            if id(share.buffer) in taken_buffers or id(share.target) in taken_targets:
                continue
            if share.target.storage_base is not None and share.target.storage_base is share.buffer:
                continue
            taken_buffers.add(id(share.buffer))
            taken_targets.add(id(share.target))
            share.buffer.storage_base = share.target
            share.buffer.storage_base_offset = share.offset
        return super().run(graph_module, graph_signature)


def _sizes(program):
    return [list(p.non_const_buffer_sizes) for p in program.executorch_program.execution_plan]


def _arenas(program):
    """``"method: arena 1 + arena 2 + ..."`` per method of the program (index 0, the
    constants, left out)."""
    return "; ".join(
        f"{p.name}: " + " + ".join(f"{v:,}" for v in list(p.non_const_buffer_sizes)[1:])
        for p in program.executorch_program.execution_plan
    )


def _lower(edge, pass_):
    return copy.deepcopy(edge).to_executorch(ExecutorchBackendConfig(memory_planning_pass=pass_))


def _run(program, x, method="forward"):
    return Runtime.get().load_program(program.buffer).load_method(method).execute([x])[0]


def _fold(edge):
    return EdgeProgramManager(
        constant_prop_pass(edge.exported_program()), compile_config=edge.compile_config
    )


def _example(name):
    """(model, input, the input's description) of a model of ``MODELS`` or
    ``TRANSFORMERS``, seeded."""
    torch.manual_seed(0)
    if name in MODELS:
        make, side = MODELS[name]
        return make().eval(), torch.randn(1, 3, side, side), f"{side}x{side}"
    make, shape = TRANSFORMERS[name]
    model = executorch_table.no_zero_weights(make().eval())
    x = executorch_table._input(shape)
    text = "x".join(str(d) for d in x.shape[2:]) if x.dim() == 4 else "x".join(map(str, x.shape))
    return model, x, text


def measure(name, fold=False):
    model, x, text = _example(name)
    with torch.no_grad():
        expected = model(x)
        edge = to_edge(torch.export.export(model, (x,)))
    if fold:
        edge = _fold(edge)
    today = _lower(edge, memplan.executorch.memory_planning_pass(verify=True))
    started = time.perf_counter()
    pass_ = memplan.executorch.memory_planning_pass(in_place=True, verify=True)
    ours = _lower(edge, pass_)
    seconds = time.perf_counter() - started
    unfolded = _lower(edge, memplan.executorch.memory_planning_pass(in_place=True, fold_constants=False))
    greedy = _lower(edge, MemoryPlanningPass())
    merged = _lower(edge, MergedGreedy())
    a, b = _run(today, x), _run(ours, x)
    c = _run(merged, x)
    (report,) = pass_.reports
    top = report.arenas[0].peak[0] if report.arenas[0].peak else None
    return {
        "input": text,
        "today": sum(_sizes(today)[0]),
        "in_place": sum(_sizes(ours)[0]),
        "unfolded": sum(_sizes(unfolded)[0]),
        "folded": report.folded_bytes or 0,
        "greedy": sum(_sizes(greedy)[0]),
        "merged": sum(_sizes(merged)[0]),
        "shares": report.shares,
        "bitwise": torch.equal(a, b) and torch.equal(a, c),
        "error": ((b - expected).abs().max() / expected.abs().max()).item(),
        "peak": f"{top.op.split('::')[-1]} {top.bytes:,}" if top else "",
        "seconds": seconds,
    }


def _decoder_edge(method):
    torch.manual_seed(0)
    model = kv_decoder.Decoder(**DECODER).eval()
    methods = kv_decoder.export_methods(model, prefill_len=8)
    return model, methods, to_edge({method: copy.deepcopy(methods[method])})


def decoder_sizes():
    rows = []
    for method in ("prefill", "decode"):
        _, _, edge = _decoder_edge(method)
        today = _lower(edge, memplan.executorch.memory_planning_pass(verify=True))
        pass_ = memplan.executorch.memory_planning_pass(in_place=True, verify=True)
        ours = _lower(edge, pass_)
        (report,) = pass_.reports
        rows.append((method, sum(_sizes(today)[0]), sum(_sizes(ours)[0]), report.shares,
                     sum(_sizes(_lower(edge, MemoryPlanningPass()))[0]),
                     sum(_sizes(_lower(edge, MergedGreedy()))[0])))
    return rows


def _replay(steps, model):
    eager = copy.deepcopy(model)
    outputs, worst = [], 0.0
    for method, (tokens, pos) in steps:
        got = method.execute([tokens, pos])[0]
        with torch.no_grad():
            expected = eager(tokens, pos)
        worst = max(worst, ((got - expected).abs().max() / expected.abs().max()).item())
        outputs.append(got)
    return outputs, worst


def decoder_runs():
    """(configuration, sizes per method unshared, shared, error, bitwise)."""
    rows = []
    model, methods, edge = _decoder_edge("decode")
    vocab = DECODER["vocab"]
    results = {}
    for in_place in (False, True):
        program = _lower(edge, memplan.executorch.memory_planning_pass(in_place=in_place))
        method = Runtime.get().load_program(program.buffer).load_method("decode")
        steps = [(method, kv_decoder.example_inputs(1, start=k, vocab=vocab, seed=1 + k))
                 for k in range(10)]
        results[in_place] = (_arenas(program), *_replay(steps, model))
    rows.append(("decode alone, 10 steps", results))
    for fast in (None, 256 * 1024):
        results = {}
        for in_place in (False, True):
            pass_ = memplan.executorch.memory_planning_pass(
                in_place=in_place, share_mutable_buffers=True, fast_capacity=fast, verify=True
            )
            program = to_edge(copy.deepcopy(methods)).to_executorch(
                ExecutorchBackendConfig(memory_planning_pass=pass_)
            )
            runtime = Runtime.get().load_program(program.buffer)
            loaded = {n: runtime.load_method(n) for n in ("prefill", "decode")}
            steps = [(loaded["prefill"], kv_decoder.example_inputs(8, vocab=vocab))] + [
                (loaded["decode"], kv_decoder.example_inputs(1, start=8 + k, vocab=vocab, seed=1 + k))
                for k in range(10)
            ]
            results[in_place] = (_arenas(program), *_replay(steps, model))
        label = "prefill + 10 decode steps, share_mutable_buffers"
        rows.append((label + (", fast_capacity=256K" if fast else ""), results))
    return rows


def _pct(new, old):
    return f"{100 * (new - old) / old:+.1f}%"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=[])
    parser.add_argument("--fold", action="store_true",
                        help="fold each model's constants first (constant_prop_pass)")
    parser.add_argument("--transformers", action="store_true",
                        help="the transformers too, when no model is named")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "executorch_inplace.md"))
    parser.add_argument("--no-decoder", action="store_true")
    args = parser.parse_args()
    if not args.models:
        args.models = list(MODELS) + (list(TRANSFORMERS) if args.transformers else [])
    unknown = [m for m in args.models if m not in MODELS and m not in TRANSFORMERS]
    if unknown:
        parser.error(f"unknown models {unknown}: expected some of {list(MODELS) + list(TRANSFORMERS)}")
    lines = [
        "| model | input | today (B) | in place (B) | change | shares | folded (B) "
        "| unfolded (B) | greedy (B) | greedy, in place (B) | bitwise | error "
        "| peak (in place) | plan time |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---:|",
    ]

    def emit(line):
        print(line, flush=True)
        lines.append(line)

    for line in lines:
        print(line)
    failures = []
    for name in args.models:
        try:
            r = measure(name, fold=args.fold)
        except Exception as e:  # report and go on: the table lists what failed and why
            failures.append((name, f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"))
            traceback.print_exc(file=sys.stderr)
            continue
        emit(
            f"| {name}{', folded' if args.fold else ''} | {r['input']} | {r['today']:,} | "
            f"{r['in_place']:,} | "
            f"{_pct(r['in_place'], r['today'])} | {r['shares']} | {r['folded']:,} | "
            f"{r['unfolded']:,} | {r['greedy']:,} | "
            f"{r['merged']:,} | {'yes' if r['bitwise'] else 'NO'} | {r['error']:.1e} | "
            f"{r['peak']} | {r['seconds']:.1f} s |"
        )
    if not args.no_decoder:
        emit("")
        emit("| decoder (4 layers, d_model 256, caches of 128) | today (B) | in place (B) "
             "| change | shares | greedy (B) | greedy, in place (B) |")
        emit("|---|---:|---:|---:|---:|---:|---:|")
        for method, today, ours, shares, greedy, merged in decoder_sizes():
            label = "prefill (8 tokens)" if method == "prefill" else "decode (1 token)"
            emit(f"| {label} | {today:,} | {ours:,} | {_pct(ours, today)} | {shares} | "
                 f"{greedy:,} | {merged:,} |")
        emit("")
        emit("| decoder run | arenas today (B) | arenas in place (B) | error (in place) | bitwise |")
        emit("|---|---|---|---:|---|")
        for label, results in decoder_runs():
            (s0, o0, _), (s1, o1, e1) = results[False], results[True]
            same = len(o0) == len(o1) and all(torch.equal(a, b) for a, b in zip(o0, o1))
            emit(f"| {label} | {s0} | {s1} | {e1:.1e} | {'yes' if same else 'NO'} |")
    for name, why in failures:
        emit(f"\nfailed: {name}: {why}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    cmd = " ".join(shlex.quote(a) for a in [Path(sys.executable).name, *sys.argv])
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    head = f"`{cmd}` on {now} (commit {commit or 'unknown'})\n\n"
    out.write_text(head + "\n".join(lines) + "\n")
    print(f"\nwritten to {out}")


if __name__ == "__main__":
    main()
