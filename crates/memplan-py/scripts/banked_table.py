"""The banked-memory table of BENCHMARKS.md: ExecuTorch's ``banked_memory_planning_pass``
against memplan's, side by side, on real models with random weights.

    python crates/memplan-py/scripts/banked_table.py [--dump DIR] [MODEL ...]

Needs `pip install "./crates/memplan-py[executorch]"`. For each model and each
``TargetMemoryMap`` below, the model goes through torch.export -> to_edge ->
to_executorch twice (ExecuTorch's banked pass, then memplan's with ExecuTorch's Verifier
on). Every program that plans runs on ExecuTorch's runtime and is compared with eager
PyTorch. Per bank it reports the traffic (bytes times accesses: one write plus one read
per user in the graph, the same count for both planners), the tensor bytes and the arena
sizes; the planning time (the algorithm's calls, summed over the graphs); and the most
traffic any plan can keep in the first bank (a 0/1 programme over the problem memplan's
pass solves, with scipy's MILP solver; exact when memplan places its choice, else an
upper bound marked "≤"). Then, for a map
whose middle bank is bounded, the smallest middle bank at which each planner still
finds a plan (bisection over the middle bank's size, on the planners alone, with the
specs of the lowered graph). Prints markdown tables and the summary figures.
"""

import argparse
import copy
import math
import sys
import time
import traceback
from pathlib import Path

import torch
import torchvision
from executorch.exir import ExecutorchBackendConfig, to_edge
from executorch.exir.banked_memory_planning import (
    Bank,
    BankedGreedy,
    BankPlacementError,
    TargetMemoryMap,
)
from executorch.exir.banked_memory_planning import (
    banked_memory_planning_pass as executorch_pass,
)
from executorch.exir.memory_planning import MemoryPlanningAlgorithmSuite
from executorch.runtime import Runtime

import memplan
import memplan.executorch
from memplan._executorch_banks import access_counts

sys.path.insert(0, str(Path(__file__).resolve().parent))
import kv_decoder  # noqa: E402
import results_file  # noqa: E402

tv = torchvision.models
KB, MB = 1024, 1024 * 1024
IMAGE = (1, 3, 224, 224)


class DecoderStep(torch.nn.Module):
    """The KV-cache decoder as one method (no sharing: ExecuTorch's banked pass refuses
    share_mutable_buffers): ``T`` tokens at positions ``start ..``."""

    def __init__(self, t, start):
        super().__init__()
        self.model = kv_decoder.Decoder(vocab=4096, d=256, heads=4, hidden=688, layers=4,
                                        max_len=128)
        self.t, self.start = t, start

    def inputs(self):
        return kv_decoder.example_inputs(self.t, start=self.start, vocab=4096)

    def forward(self, tokens, input_pos):
        return self.model(tokens, input_pos)


MODELS = {
    "mobilenet_v2": lambda: tv.mobilenet_v2(),
    "resnet18": lambda: tv.resnet18(),
    "googlenet": lambda: tv.googlenet(aux_logits=False, init_weights=True),
    "efficientnet_b0": lambda: tv.efficientnet_b0(),
    "squeezenet1_1": lambda: tv.squeezenet1_1(),
    "shufflenet_v2_x1_0": lambda: tv.shufflenet_v2_x1_0(),
    "mobilenet_v3_small": lambda: tv.mobilenet_v3_small(),
    "decoder_prefill": lambda: DecoderStep(32, 0),
    "decoder_decode": lambda: DecoderStep(1, 32),
}


def maps():
    """name -> TargetMemoryMap: 2 banks at several fast sizes, 3 banks, and maps whose
    mem_ids are not in speed order."""
    big = 64 * MB
    out = {}
    for fast in (256 * KB, 1 * MB, 2 * MB):
        out[f"2: {fast // KB}K + 64M"] = TargetMemoryMap(
            [Bank("tcm", fast, 1), Bank("sram", big, 2)])
    out["2: 512K@id2 + 64M@id1"] = TargetMemoryMap(
        [Bank("tcm", 512 * KB, 2), Bank("sram", big, 1)])
    out["3: 256K + 1M + 64M"] = TargetMemoryMap(
        [Bank("tcm", 256 * KB, 1), Bank("ocram", 1 * MB, 2), Bank("sdram", big, 3)])
    out["3: 512K@id3 + 2M@id1 + 64M@id2"] = TargetMemoryMap(
        [Bank("tcm", 512 * KB, 3), Bank("ocram", 2 * MB, 1), Bank("sdram", big, 2)])
    return out


class Recorder:
    """Wraps a planning algorithm: per bank traffic and bytes of what it placed, its
    time, and the arguments of its last call (for the middle-bank search)."""

    def __init__(self, algo):
        self.algo = algo
        self.__name__ = getattr(algo, "__name__", "algo")
        self.seconds = 0.0
        self.traffic = {}
        self.bytes = {}
        self.last = None

    def __call__(self, alignment, specs, graph_module, graph_signature=None, extra_padding=0):
        specs = list(specs)
        self.last = (alignment, specs, graph_module, graph_signature, extra_padding)
        started = time.perf_counter()
        result = self.algo(alignment, specs, graph_module, graph_signature, extra_padding)
        self.seconds += time.perf_counter() - started
        counts = access_counts(graph_module)
        for spec, alloc in result.spec_dict.items():
            nbytes = spec.nbytes()
            self.traffic[alloc.mem_id] = self.traffic.get(alloc.mem_id, 0) + nbytes * counts.get(id(spec), 1)
            if getattr(spec, "storage_base", None) is None:
                self.bytes[alloc.mem_id] = self.bytes.get(alloc.mem_id, 0) + nbytes
        return result


class Solved:
    """Records the problems memplan's pass hands to the library (``memplan._memplan.plan``
    with ``memories``: its one call per graph), as ``(problem, keyword arguments)``."""

    def __init__(self):
        self.calls = []
        self.plan = memplan._memplan.plan

    def __enter__(self):
        def spy(problem, **kwargs):
            if kwargs.get("memories") is not None:
                self.calls.append((problem, kwargs))
            return self.plan(problem, **kwargs)
        memplan._memplan.plan = spy
        return self

    def __exit__(self, *exc):
        memplan._memplan.plan = self.plan


def lower(edge, target, ours, time_limit):
    if ours:
        pass_ = memplan.executorch.banked_memory_planning_pass(
            target, time_limit=time_limit, verify=True)
    else:
        pass_ = executorch_pass(target)
    suite = pass_.memory_planning_algo
    recorder = Recorder(suite.algo_list[0])
    pass_.memory_planning_algo = MemoryPlanningAlgorithmSuite(algo_list=[recorder])
    with Solved() as solved:
        program = copy.deepcopy(edge).to_executorch(
            ExecutorchBackendConfig(memory_planning_pass=pass_))
    recorder.solved = solved.calls[:1]
    return program, recorder


def most_first_bank_traffic(problem, kwargs):
    """The most traffic any plan can keep in the first memory of the problem memplan's
    pass solved, as ``(traffic, exact)``: the 0/1 programme "keep the most traffic with
    at most the capacity live at every time" (scipy's MILP solver, HiGHS), an upper bound
    on every plan's; ``exact`` when memplan then places the chosen buffers under the
    capacity, which makes the bound the optimum. ``None`` without scipy, or when the
    solver stops early."""
    try:
        import numpy as np
        from scipy.optimize import Bounds, LinearConstraint, milp
        from scipy.sparse import lil_matrix
    except ImportError:
        return None
    first = kwargs["memories"][0]
    capacity = first.capacity
    buffers = problem.buffers
    allowed = kwargs["allowed"]
    accesses = kwargs["accesses"]
    free = [i for i, b in enumerate(buffers) if b["size"] <= capacity
            and (allowed[i] is None or first.name in allowed[i])]
    if not free:
        return 0, True
    starts = sorted({buffers[i]["start"] for i in free})
    at = {t: k for k, t in enumerate(starts)}
    load = lil_matrix((len(starts), len(free)))
    for k, i in enumerate(free):
        b = buffers[i]
        for t in starts[at[b["start"]]:]:
            if t >= b["end"]:
                break
            load[at[t], k] = b["size"]
    traffic = np.array([buffers[i]["size"] * accesses[i] for i in free], dtype=float)
    pinned = np.array([1.0 if allowed[i] == [first.name] else 0.0 for i in free])
    result = milp(-traffic, constraints=LinearConstraint(load.tocsr(), -np.inf, capacity),
                  integrality=np.ones(len(free)), bounds=Bounds(pinned, 1),
                  options={"time_limit": 120})
    if result.status != 0:
        return None
    chosen = [free[k] for k in range(len(free)) if result.x[k] > 0.5]
    kept = memplan.Problem([(str(i), buffers[i]["start"], buffers[i]["end"], buffers[i]["size"],
                             math.lcm(buffers[i]["alignment"], first.alignment))
                            for i in chosen])
    try:
        memplan.plan(kept.with_capacity(capacity), work_limit=10 * memplan.DEFAULT_WORK_LIMIT)
        exact = True
    except memplan.MemplanError:
        exact = False
    return int(round(-result.fun)), exact


def dump(directory, name, solved):
    """The buffers of the problem memplan's pass solved (sizes rounded for the banks,
    accesses, pins), as a memplan CSV problem (give the memories with ``--memories``):
    ``DIRECTORY/NAME.csv``."""
    problem, kwargs = solved
    lines = ["id,lower,upper,size,alignment,accesses,memories"]
    for b, allow, acc in zip(problem.buffers, kwargs["allowed"], kwargs["accesses"]):
        pins = "|".join(allow) if allow is not None else ""
        lines.append(f"{b['id']},{b['start']},{b['end']},{b['size']},{b['alignment']},{acc},{pins}")
    Path(directory).mkdir(parents=True, exist_ok=True)
    (Path(directory) / f"{name}.csv").write_text("\n".join(lines) + "\n")


def run_error(program, inputs, expected):
    got = Runtime.get().load_program(program.buffer).load_method("forward").execute(list(inputs))[0]
    return ((got - expected).abs().max() / expected.abs().max()).item()


def smallest_middle(recorder, fast, last, ours, time_limit):
    """The smallest middle bank (16-byte steps) of [tcm fast, ocram M, sdram last] at
    which the planner finds a plan for the recorded graph, by bisection."""
    alignment, specs, gm, gs, pad = recorder.last

    def fits(middle):
        for spec in specs:  # the lowering wrote its placement into the specs: unpin them
            spec.mem_id = spec.mem_obj_id = spec.mem_offset = None
        target = TargetMemoryMap([Bank("tcm", fast, 1), Bank("ocram", max(middle, 1), 2),
                                  Bank("sdram", last, 3)])
        algo = (memplan.executorch.BankedAlgorithm(target, time_limit=time_limit) if ours
                else BankedGreedy(target))
        try:
            algo(alignment, list(specs), gm, gs, pad)
            return True
        except BankPlacementError:
            return False

    hi = sum(s.allocated_memory for s in specs) + 16
    if not fits(hi):
        return None
    lo = 0  # fits(lo) is unknown; keep hi fitting
    while hi - lo > 16:
        mid = (lo + hi) // 2 // 16 * 16
        if mid <= lo:
            break
        if fits(mid):
            hi = mid
        else:
            lo = mid
    return hi


def max_load(specs):
    """The most bytes live at one time (aliases left out, lifetimes inclusive)."""
    events = []
    for spec in specs:
        if getattr(spec, "storage_base", None) is None and spec.allocated_memory:
            size = spec.allocated_memory
            events += [(spec.lifetime[0], size), (spec.lifetime[1] + 1, -size)]
    load = best = 0
    for _, delta in sorted(events, key=lambda e: (e[0], e[1] > 0)):
        load += delta
        best = max(best, load)
    return best


def geometric_mean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def mb(n):
    return f"{n / MB:.2f}"


def measure(name, targets, time_limit, search, dump_dir=None):
    torch.manual_seed(0)
    model = MODELS[name]().eval()
    if isinstance(model, DecoderStep):
        inputs = model.inputs()
    else:
        inputs = (torch.randn(*IMAGE),)
    with torch.no_grad():
        expected = model(*inputs)
        edge = to_edge(torch.export.export(model, inputs, strict=False))
    rows = []
    last_recorders = None
    for map_name, target in targets.items():
        row = {"model": name, "map": map_name}
        for ours in (False, True):
            key = "memplan" if ours else "executorch"
            try:
                program, rec = lower(edge, target, ours, time_limit)
            except BankPlacementError as e:
                row[key] = {"failed": str(e).splitlines()[0][:120]}
                continue
            sizes = list(program.executorch_program.execution_plan[0].non_const_buffer_sizes)
            row[key] = {
                "traffic": [rec.traffic.get(m, 0) for m in target.mem_ids()],
                "bytes": [rec.bytes.get(m, 0) for m in target.mem_ids()],
                "arenas": [sizes[m] if m < len(sizes) else 0 for m in target.mem_ids()],
                "seconds": rec.seconds,
                "error": run_error(program, inputs, expected),
            }
            if ours and rec.solved:
                row[key]["most"] = most_first_bank_traffic(*rec.solved[0])
                if dump_dir and map_name == next(iter(targets)):
                    dump(dump_dir, name, rec.solved[0])
            for m, bank in zip(target.mem_ids(), target.banks):
                assert row[key]["arenas"][target.mem_ids().index(m)] <= bank.size
            last_recorders = (last_recorders or {}) | {key: rec}
        rows.append(row)
    middle = None
    if search and last_recorders and len(last_recorders) == 2:
        rec = last_recorders["memplan"]
        # The last bank holds half of the most bytes live at once: the middle bank must
        # take most of the rest, and how tightly each planner packs it shows.
        last = max(16, max_load(rec.last[1]) // 2 // 16 * 16)
        middle = {
            "fast": 256 * KB, "last": last,
            "executorch": smallest_middle(last_recorders["executorch"], 256 * KB, last, False, time_limit),
            "memplan": smallest_middle(rec, 256 * KB, last, True, time_limit),
        }
    return rows, middle


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=list(MODELS))
    parser.add_argument("--time-limit", type=float, default=None,
                        help="a wall-clock limit for memplan (default: its work limit)")
    parser.add_argument("--no-search", action="store_true", help="skip the middle-bank search")
    parser.add_argument("--search-only", action="store_true",
                        help="only the middle-bank search (lowers with the last map only)")
    parser.add_argument("--dump", metavar="DIR",
                        help="write each model's problem (as memplan's pass solves it for the "
                        "first map) to DIR/MODEL.csv")
    parser.add_argument("--out", metavar="FILE",
                        help="also write the output to FILE (benchmarks/results/executorch_banked.md), "
                        "under a line naming the command")
    args = parser.parse_args()
    if args.out:
        sys.stdout = results_file.Tee(sys.stdout)
    targets = maps()
    if args.search_only:
        targets = dict(list(targets.items())[-1:])
    print("| model | map | ExecuTorch traffic per bank (MB) | memplan traffic per bank (MB) "
          "| first bank | most any plan keeps in the first bank (MB) "
          "| ExecuTorch bytes / arenas (MB) | memplan bytes / arenas (MB) "
          "| time ET / memplan (ms) | error |")
    print("|---|---|---|---|---:|---:|---|---|---|---:|")
    ratios, worse, failures, middles, most = [], [], [], [], []
    for name in args.models:
        try:
            rows, middle = measure(name, targets, args.time_limit, not args.no_search, args.dump)
        except Exception as e:  # report and go on
            failures.append((name, f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"))
            traceback.print_exc(file=sys.stderr)
            continue
        for row in rows:
            et, mp = row["executorch"], row["memplan"]
            if "failed" in mp:
                failures.append((f"{name} {row['map']}", "memplan: " + mp["failed"]))
            if "failed" in et or "failed" in mp:
                print(f"| {name} | {row['map']} | {et.get('failed', '')} | {mp.get('failed', '')} "
                      "| | | | | | |")
                continue
            ratio = mp["traffic"][0] / et["traffic"][0] if et["traffic"][0] else float("inf")
            ratios.append(ratio)
            if mp["traffic"][0] < et["traffic"][0]:
                worse.append(f"{name} {row['map']}")
            best = mp.get("most")
            if best is not None and et["traffic"][0]:
                most.append((best[0] / et["traffic"][0], mp["traffic"][0] / best[0] if best[0] else 1.0))
            shown = "n/a" if best is None else f"{'' if best[1] else '≤ '}{mb(best[0])}"
            print(
                f"| {name} | {row['map']} | {' / '.join(map(mb, et['traffic']))} "
                f"| {' / '.join(map(mb, mp['traffic']))} | {ratio:.3f}x | {shown} "
                f"| {' / '.join(map(mb, et['bytes']))}; {' / '.join(map(mb, et['arenas']))} "
                f"| {' / '.join(map(mb, mp['bytes']))}; {' / '.join(map(mb, mp['arenas']))} "
                f"| {et['seconds'] * 1000:.0f} / {mp['seconds'] * 1000:.0f} "
                f"| {max(et['error'], mp['error']):.1e} |",
                flush=True,
            )
        if middle:
            middles.append((name, middle))
    finite = [r for r in ratios if math.isfinite(r) and r > 0]
    if finite:
        print(f"\nfirst-bank traffic, memplan / ExecuTorch: geometric mean "
              f"{geometric_mean(finite):.3f}x over "
              f"{len(finite)} model-map pairs, min {min(finite):.3f}x, max {max(finite):.3f}x")
    if most:
        print(f"the most any plan keeps in the first bank / ExecuTorch's: geometric mean "
              f"{geometric_mean([a for a, _ in most]):.4f}x over {len(most)}; memplan's / that "
              f"most: geometric mean {geometric_mean([b for _, b in most]):.4f}, "
              f"min {min(b for _, b in most):.4f}")
    print(f"memplan serves less first-bank traffic than ExecuTorch on: {worse or 'none'}")
    if middles:
        print("\n| model | tcm | sdram | smallest ocram, ExecuTorch | smallest ocram, memplan |")
        print("|---|---:|---:|---:|---:|")
        for name, m in middles:
            def show(v):
                return "never" if v is None else f"{v:,}"
            print(f"| {name} | {m['fast']:,} | {m['last']:,} | {show(m['executorch'])} "
                  f"| {show(m['memplan'])} |")
    for name, why in failures:
        print(f"failed: {name}: {why}")
    if args.out:
        sys.stdout.save(args.out)


if __name__ == "__main__":
    main()
