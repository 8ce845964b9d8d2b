"""From a PyTorch program to a memplan problem: the activations of an exported program.

``problem_from_program(torch.export.export(model, inputs))`` returns a ``memplan.Problem``
whose buffers are the program's activation storages, and a mapping from each buffer id
back to the graph nodes that use that storage. ``python -m memplan.torch MODEL.pt2`` plans
a program saved with ``torch.export.save`` and prints its figures; ``--render plan.svg``
draws the plan.

The rules, over the steps of ``exported_program.graph``: every placeholder is step 0
(inputs, parameters and buffers are all there when the program starts), and each other
node, in order, is the next step (1, 2, ...):

- **What allocates.** A user input (a placeholder the signature lists as a user input)
  and every tensor a ``call_function`` node produces, unless the node is a view or an
  in-place op (below). A node with several tensor outputs (``native_batch_norm``,
  ``max_pool2d_with_indices``) allocates one storage per output; ``operator.getitem`` picks
  one and allocates nothing. Parameters, buffers and lifted constants are not planned
  (they live in the program's constant segment), nor is anything viewed from them.
- **Aliases are folded.** An op whose schema says its result aliases an argument
  (``Tensor(a)``: ``view``, ``permute``, ``expand``, ``slice``, ``split``, ...) or writes
  into it (``Tensor(a!)``: ``add_``, ``copy_``, ...) produces no storage: its result *is*
  the argument's storage, and every use of the result is a use of that storage.
- **What is live.** A storage is live from the node that creates it (index 0 for user
  inputs) through the last node that uses it or any of its aliases, inclusive; the
  buffer's half-open lifetime is ``[first, last + 1)``. Storages the graph returns stay live
  through the output node::

      step:      0 x   1 conv   2 relu_   3 view   4 linear   5 output
      x          [====)                                        x: [0, 2)
      conv             [=====================)                  conv (relu_, view folded): [1, 4)
      linear                                   [============)  linear: [4, 6)

- **Sizes.** The bytes a storage spans: ``element_size * (1 + sum((shape[d] - 1) *
  stride[d]))``, i.e. ``numel * element_size`` when contiguous, rounded up to
  ``alignment`` (default 16, ExecuTorch's), which is also each buffer's offset alignment.
  Zero-size tensors (shape ``(0,)``) are left out, since they occupy no memory.
- **Dynamic shapes.** A symbolic dimension (``torch.export.Dim``) is planned at its
  upper bound over the program's ``range_constraints``, as ExecuTorch plans it, so the
  figures hold at every size in the range. A size with no upper bound raises
  ``memplan.InputError``. The program is only read: its shapes are never specialised to
  the example input, and it lowers and runs at every size afterwards.

Buffer ids are the names of the nodes that create the storages.

**Weights the edge dialect copies.** These figures are the exported program's. Lowered
to ExecuTorch (``to_edge``), a ``linear`` becomes ``permute_copy(weight)`` and ``addmm``,
and a ``permute``/``t``/``transpose`` of a weight becomes a ``permute_copy``: the
transposed weight is then a new activation, as large as the weight, which no planner can
shrink (efficientnet_v2_s's classifier weight: BENCHMARKS.md §7). A ``linear``'s copy lives
only at its own node, so the copies seldom add up: ``weight_copies(exported_program)``
lists them, ``weight_copies_at_peak`` gives the max load without and with them, and
``python -m memplan.torch`` names them below its figures with what they add at the peak.
"""

from __future__ import annotations

import argparse
import logging
import operator
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

try:
    import torch
    from torch.export import ExportedProgram
    from torch.utils._sympy.value_ranges import bound_sympy
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError(f"memplan.torch needs PyTorch: pip install 'memplan[torch]': {e}") from e

import memplan

__all__ = ["problem_from_program", "weight_copies", "weight_copies_at_peak", "main"]


@dataclass
class _Storage:
    id: str
    start: int
    last: int
    size: int
    nodes: List[Any] = field(default_factory=list)


def _upper(value: Any, node: Any, ranges: Dict[Any, Any]) -> int:
    """A dimension or stride as an int: itself when static, else the upper bound of its
    expression over the program's ranges. Reads the symbol, never ``int()`` of it:
    ``int(SymInt)`` specialises the program's shape environment to the example input,
    changing the caller's program (issue 27)."""
    if not isinstance(value, torch.SymInt):
        return int(value)
    expr = value.node.expr
    if expr.is_number:
        return int(expr)
    shape_env = getattr(value.node, "shape_env", None)
    known = dict(getattr(shape_env, "var_to_range", {}) or {})
    known.update(ranges)
    upper = bound_sympy(expr, known).upper
    try:  # torch's int_oo (no bound) has no int value
        return int(upper)
    except (TypeError, ValueError, OverflowError, AttributeError):
        raise memplan.InputError(
            f"node '{node.name}': the size {expr} has no upper bound "
            "(give its Dim a max, e.g. Dim('batch', max=64))"
        ) from None


def _nbytes(val: Any, node: Any, ranges: Dict[Any, Any]) -> int:
    """Bytes spanned by a tensor's elements (its shape and strides); a symbolic
    dimension at its upper bound, as ExecuTorch plans it."""
    shape = [_upper(d, node, ranges) for d in val.shape]
    stride = [_upper(s, node, ranges) for s in val.stride()]
    if any(d == 0 for d in shape):
        return 0
    span = 1 + sum((d - 1) * abs(s) for d, s in zip(shape, stride))
    return span * val.element_size()


def _tensors(val: Any) -> List[Optional[Any]]:
    """A node's outputs as a list, ``None`` where an output is not a tensor."""
    if isinstance(val, torch.Tensor):
        return [val]
    if isinstance(val, (list, tuple)):
        return [v if isinstance(v, torch.Tensor) else None for v in val]
    return []


def _aliased_argument(node: Any) -> Optional[Any]:
    """The argument node whose storage the result aliases or writes into, by the op's
    schema (``Tensor(a)`` or ``Tensor(a!)`` on the return and on an argument)."""
    schema = getattr(node.target, "_schema", None)
    if schema is None or not schema.returns:
        return None
    alias = schema.returns[0].alias_info
    if alias is None:
        return None
    for k, arg in enumerate(schema.arguments):
        info = arg.alias_info
        if info is None or not (info.before_set & alias.before_set):
            continue
        value = node.args[k] if k < len(node.args) else node.kwargs.get(arg.name)
        if isinstance(value, torch.fx.Node):
            return value
    return None


def _round_up(n: int, alignment: int) -> int:
    return -(-n // alignment) * alignment


def _storages(program: ExportedProgram) -> Tuple[List[_Storage], int]:
    """Walks the graph; returns the storages in creation order and the number of
    zero-size tensors left out."""
    signature = program.graph_signature
    user_inputs = set(signature.user_inputs)
    nodes = list(program.graph.nodes)
    # For each node, the storage of each of its outputs (None: not planned).
    of: Dict[Any, List[Optional[_Storage]]] = {}
    storages: List[_Storage] = []
    empty = 0
    ranges = dict(program.range_constraints)

    def new(node: Any, index: int, val: Any, suffix: str) -> Optional[_Storage]:
        nonlocal empty
        size = _nbytes(val, node, ranges)
        if size == 0:
            empty += 1
            return None
        s = _Storage(node.name + suffix, index, index, size, [node])
        storages.append(s)
        return s

    def use(arg: Any, index: int) -> None:
        for s in of.get(arg, []):
            if s is not None:
                s.last = max(s.last, index)

    index = 0
    for node in nodes:
        if node.op != "placeholder":
            index += 1
        if node.op == "placeholder":
            outs = _tensors(node.meta.get("val"))
            if node.name in user_inputs:
                of[node] = [new(node, 0, v, "") if v is not None else None for v in outs]
            continue
        if node.op == "output":  # what the graph returns stays live through here
            for arg in _flatten_nodes(node.args):
                use(arg, index)
            continue
        if node.op != "call_function":
            continue
        for arg in _flatten_nodes((node.args, node.kwargs)):
            use(arg, index)
        if node.target is operator.getitem:
            source, k = node.args[0], node.args[1]
            outs = of.get(source, [])
            s = outs[k] if isinstance(k, int) and k < len(outs) else None
            of[node] = [s]
            if s is not None:
                s.nodes.append(node)
            continue
        base = _aliased_argument(node)
        if base is not None:
            shared = [s for s in of.get(base, []) if s is not None][:1]
            count = max(1, len(_tensors(node.meta.get("val"))))
            of[node] = shared * count if shared else []
            for s in shared:
                s.nodes.append(node)
            continue
        outs = _tensors(node.meta.get("val"))
        many = len(outs) > 1 or isinstance(node.meta.get("val"), (list, tuple))
        of[node] = [
            new(node, index, v, f"[{k}]" if many else "") if v is not None else None
            for k, v in enumerate(outs)
        ]
    return storages, empty


def _flatten_nodes(args: Any) -> List[Any]:
    out: List[Any] = []
    torch.fx.node.map_arg(args, lambda n: out.append(n))
    return out


def problem_from_program(
    exported_program: ExportedProgram, alignment: int = 16
) -> Tuple[memplan.Problem, Dict[str, Tuple[Any, ...]]]:
    """The activations of an exported program as a ``memplan.Problem``.

    Returns ``(problem, nodes)``: ``nodes[id]`` holds the ``torch.fx.Node`` objects whose
    results share that buffer's storage (the creating node first, then its views and
    in-place updates). See the module doc for the rules.
    """
    if not isinstance(exported_program, ExportedProgram):
        raise TypeError(
            "problem_from_program takes the result of torch.export.export, got "
            f"{type(exported_program).__name__}"
        )
    if isinstance(alignment, bool) or not isinstance(alignment, int) or alignment < 1:
        raise ValueError(f"alignment must be an int >= 1, got {alignment!r}")
    storages, _ = _storages(exported_program)
    buffers = [
        (s.id, s.start, s.last + 1, _round_up(s.size, alignment), alignment) for s in storages
    ]
    return memplan.Problem(buffers), {s.id: tuple(s.nodes) for s in storages}


#: View ops of a weight that the edge dialect turns into a ``permute_copy``.
_TRANSPOSES = {"permute", "t", "transpose", "numpy_T"}


def weight_copies(exported_program: ExportedProgram) -> List[Tuple[str, str, int]]:
    """The weights that lowering to ExecuTorch's edge dialect copies into activations
    (see the module doc), as ``(node name, weight name, bytes)`` in graph order: each
    ``linear`` on a parameter or constant, and each transposing view of one."""
    signature = exported_program.graph_signature
    weights = {
        **signature.inputs_to_parameters,
        **signature.inputs_to_buffers,
        **signature.inputs_to_lifted_tensor_constants,
    }
    out: List[Tuple[str, str, int]] = []
    for node in exported_program.graph.nodes:
        if node.op != "call_function":
            continue
        packet = getattr(getattr(node.target, "overloadpacket", None), "__name__", "")
        if packet == "linear" and len(node.args) > 1:
            weight = node.args[1]
        elif packet in _TRANSPOSES and node.args:
            weight = node.args[0]
        else:
            continue
        if not isinstance(weight, torch.fx.Node) or weight.name not in weights:
            continue
        val = weight.meta.get("val")
        if isinstance(val, torch.Tensor):
            out.append((node.name, weights[weight.name], val.numel() * val.element_size()))
    return out


def _copy_buffers(exported_program: ExportedProgram, alignment: int) -> List[Tuple[str, int, int, int, int]]:
    """The weight copies of ``weight_copies`` as buffers ``(id, start, end, size,
    alignment)`` on the steps of ``problem_from_program``: a copy is made at its node's
    step (just before a ``linear`` uses it, or where the transposing view is) and lives
    through the last use of the node's result (a ``linear``'s copy: its own step only)."""
    copies = {node: size for node, _, size in weight_copies(exported_program)}
    step: Dict[str, int] = {}
    index = 0
    for node in exported_program.graph.nodes:
        if node.op != "placeholder":
            index += 1
        step[node.name] = 0 if node.op == "placeholder" else index
    out = []
    for node in exported_program.graph.nodes:
        if node.name not in copies:
            continue
        first = step[node.name]
        packet = getattr(getattr(node.target, "overloadpacket", None), "__name__", "")
        last = first if packet == "linear" else max([first] + [step[u.name] for u in node.users])
        out.append(
            (f"copy:{node.name}", first, last + 1, _round_up(copies[node.name], alignment), alignment)
        )
    return out


def weight_copies_at_peak(exported_program: ExportedProgram, alignment: int = 16) -> Tuple[int, int]:
    """What the weight copies of ``weight_copies`` add at the peak: ``(max load of the
    program's activations, max load with the copies as activations too)``. The copies
    are short-lived (a ``linear``'s lives only at its step), so their sum overstates
    their effect; the difference of the two max loads is what they add to the lower
    bound of any plan of the lowered program."""
    problem, _ = problem_from_program(exported_program, alignment)
    copies = _copy_buffers(exported_program, alignment)
    if not copies:
        return problem.max_load(), problem.max_load()
    buffers = [
        (b["id"], b["start"], b["end"], b["size"], b.get("alignment", 1)) for b in problem.buffers
    ]
    return problem.max_load(), memplan.Problem(buffers + copies).max_load()


def _figures(problem: memplan.Problem, plan: memplan.Plan) -> str:
    frag = plan.height - plan.max_load
    pct = 100.0 * frag / plan.max_load if plan.max_load else 0.0
    return (
        f"buffers {len(problem):,}  max load {plan.max_load:,}  height {plan.height:,}  "
        f"fragmentation {frag:,} ({pct:.2f}%)  planner {plan.planner}  "
        f"time {plan.elapsed * 1000:.1f} ms" + ("  optimal" if plan.optimal else "")
    )


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m memplan.torch MODEL.pt2 [--render plan.svg] [--csv problem.csv]``.

    Exit codes: 0 success, 1 i/o error, 2 usage error, 3 invalid input."""
    parser = argparse.ArgumentParser(
        prog="python -m memplan.torch",
        description="Plan the activation memory of a program saved with torch.export.save.",
    )
    parser.add_argument("model", help="an exported program (.pt2) from torch.export.save")
    parser.add_argument("--render", metavar="SVG", help="write the plan's picture here")
    parser.add_argument("--csv", metavar="CSV", help="write the problem here (memplan's CSV)")
    parser.add_argument("--work-limit", type=int, default=None, metavar="W",
                        help=f"planning budget in work units (default: memplan's, "
                        f"{memplan.DEFAULT_WORK_LIMIT:,}; the plan depends on the input alone)")
    parser.add_argument("--time-limit", type=float, default=None, metavar="S",
                        help="also stop after S seconds (default: no clock; a plan the clock "
                        "stopped may differ between runs)")
    parser.add_argument("--planner", default="auto", help="a memplan planner (default auto)")
    parser.add_argument("--alignment", type=int, default=16,
                        help="round sizes and offsets to this many bytes (default 16)")
    args = parser.parse_args(argv)
    try:
        with open(args.model, "rb"):
            pass
    except OSError as e:
        print(f"error: {args.model}: {e.strerror or e}", file=sys.stderr)
        return 1
    # torch logs a traceback before raising on a file that is not a .pt2; one line is ours.
    export_log = logging.getLogger("torch.export")
    level = export_log.level
    export_log.setLevel(logging.CRITICAL)
    try:
        program = torch.export.load(args.model)
    except Exception as e:  # torch raises many kinds for a file that is not a .pt2
        print(f"error: {args.model}: not an exported program: {type(e).__name__}: {e}".splitlines()[0],
              file=sys.stderr)
        return 3
    finally:
        export_log.setLevel(level)
    try:
        started = time.monotonic()
        problem, _ = problem_from_program(program, alignment=args.alignment)
        plan = memplan.plan(problem, planner=args.planner, time_limit=args.time_limit,
                            work_limit=args.work_limit)
        memplan.check(problem, plan)
    except (memplan.MemplanError, ValueError) as e:
        print(f"error: {args.model}: {e}", file=sys.stderr)
        return 3 if isinstance(e, memplan.InputError) else 2
    print(f"{args.model}: {_figures(problem, plan)}  (end to end {time.monotonic() - started:.2f} s)")
    copies = weight_copies(program)
    if copies:
        shown = ", ".join(f"{w} ({n:,} B, {node})" for node, w, n in copies[:5])
        more = f" and {len(copies) - 5} more" if len(copies) > 5 else ""
        before, after = weight_copies_at_peak(program, alignment=args.alignment)
        print(
            f"note: lowered to ExecuTorch, {len(copies)} weight(s) become short-lived "
            f"activations (permute_copy) that no planner can shrink; at the peak they add "
            f"{after - before:,} B to the max load ({before:,} -> {after:,} B; "
            f"{sum(n for _, _, n in copies):,} B summed over their uses): {shown}{more}"
        )
    try:
        if args.csv:
            with open(args.csv, "w") as f:
                f.write(problem.to_csv())
        if args.render:
            name = args.model.rsplit("/", 1)[-1]
            with open(args.render, "w") as f:
                f.write(memplan.render(problem, plan, name=name))
    except OSError as e:
        print(f"error: {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    return 0
