"""The storage an ExecuTorch graph's tensors may share, for ``memory_planning_pass(in_place=True)``
(``memplan.executorch``; this module only reads the graph, it plans nothing).

A kernel that reads ``x[i]`` and then writes ``out[i]`` can write over ``x`` when ``x``
dies at that kernel. This module lists such pairs as *shares* for memplan's planner,
which takes a share only where it lowers (or keeps) the plan:

- **Pointwise ops** (``POINTWISE``): ``out`` may take the storage of a tensor input of
  the same shape (symbolic shape too, so no broadcast), dtype and dim order, whose last
  reader is this op ("in place": ``out`` starts where the input ends). An input that is
  a view (``memory.view``; a chain of them) is its base's storage: the op is compared
  with the view's own spec (shape, dtype, dim order) and the base's bytes, and ``out``
  takes the base's storage (a ``Linear`` on a 3-D input is ``addmm -> view``). Softmax
  is listed with them: it reads each slice along ``dim`` whole before it writes it.
- **Batch norm** (``_native_batch_norm_legit_no_training``): its first output over its
  input, as above.
- **Cache updates** (``index_put``, ``index_copy``): the result of an update of a mutable
  buffer (a KV cache) whose old value no node reads afterwards, and which the program
  writes back into that buffer (``copy_(buffer, result)``), lives *inside* the buffer
  (offset 0). The write-back then copies the buffer onto itself.
- **Write-back outputs**: the cache-sized tensors the output node lists for each
  ``copy_`` into a mutable buffer, which no node reads, live inside that buffer.
- **Concat** (``cat``): each input may live *inside* the output, at the bytes of the
  inputs before it, when the output's slices along ``dim`` are contiguous (default dim
  order, every dimension before ``dim`` of size 1) and the input is a tensor of its own
  (not a view), listed once. The output is then reserved from its first input's birth,
  which can raise the plan: the planner takes these shares only where they help. An
  input may be read after the concat: its bytes are the output's slice, which nothing
  writes while the input lives (the checker holds the planner to that).

Never shared: a graph input or output (except the mutable-buffer cases above), a
constant, an input another node reads later (a view's reads count as its base's), a
spec that already aliases another (``storage_base``), or an input the op also reads in
a role that is not elementwise.

ExecuTorch's lifetimes are inclusive node indices and an out-variant op's output starts
at its ``alloc`` node, a few nodes before the op. Nothing is written into an output
before its op runs, so for an in-place share the output's lifetime starts at the op
(``Share.start``): with ``x`` read last at node ``t`` (``[.., t+1)`` half-open) and
``out`` written at ``t`` (``[t, ..)``), memplan's in-place rule holds exactly when the op
is ``x``'s last reader.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import torch
from executorch.exir import memory
from executorch.exir.memory_planning import get_node_tensor_specs
from executorch.exir.tensor import TensorSpec

#: Pointwise ops (schema names) whose out-variant kernel may write over an input, and
#: the names of the arguments it reads elementwise. Each was run shared against unshared
#: on ExecuTorch's runtime (tests/test_executorch_inplace.py; docs/executorch.md lists
#: the kernel library of each).
POINTWISE: Dict[str, Tuple[str, ...]] = {
    "aten::relu": ("self",),
    "aten::hardtanh": ("self",),
    "aten::clamp": ("self",),
    "aten::sigmoid": ("self",),
    "aten::tanh": ("self",),
    "aten::gelu": ("self",),
    "aten::leaky_relu": ("self",),
    "aten::elu": ("self",),
    "aten::neg": ("self",),
    "aten::abs": ("self",),
    "aten::exp": ("self",),
    "aten::sqrt": ("self",),
    "aten::rsqrt": ("self",),
    "aten::log": ("self",),
    "aten::add": ("self", "other"),
    "aten::sub": ("self", "other"),
    "aten::mul": ("self", "other"),
    "aten::div": ("self", "other"),
    "aten::logical_not": ("self",),
    "aten::where": ("self", "other"),
    # Not elementwise, but each slice along `dim` is read whole (its max, then its sum)
    # before any element of it is written, each from the input element at its index.
    "aten::_softmax": ("self",),
}

#: Batch norm: the first output over the input.
BATCH_NORM: Dict[str, str] = {"aten::_native_batch_norm_legit_no_training": "input"}

#: Cache updates: the result inside the updated mutable buffer (argument ``self``).
#: ``index_put`` was run on the runtime (a KV decoder's updates). ``to_edge`` lowers a
#: model's ``index_copy_`` of a buffer to ``index_put`` (tested); an ``index_copy`` left in
#: a graph would need a kernel ExecuTorch 1.5.1's pip runtime does not register.
CACHE_UPDATES: Tuple[str, ...] = ("aten::index_put", "aten::index_copy")

#: Concat: each input inside the output (argument ``tensors``, along ``dim``).
CONCAT: Tuple[str, ...] = ("aten::cat",)

_COPY = "aten::copy_"


@dataclass(frozen=True)
class Share:
    """One share the planner may take: ``buffer`` takes ``target``'s storage.

    ``kind`` is ``"in_place"`` (``buffer`` starts where ``target`` ends) or ``"inside"``
    (``buffer`` lies inside ``target`` at ``offset`` bytes, while both live). ``start``
    is the node index at which ``buffer`` is first written (its op), which memplan uses
    as its start for an in-place share; ``None`` keeps the spec's lifetime."""

    buffer: Any
    target: Any
    kind: str
    offset: int
    start: Optional[int]
    node: str
    op: str
    rule: str  # "pointwise", "batch_norm", "cache_update", "write_back" or "concat"


def op_name(node: torch.fx.Node) -> str:
    """The schema name of a ``call_function`` node's operator (``"aten::relu"``), or
    the node's target as text when it has no schema (``"getitem"``, ``"alloc"``)."""
    target = node.target
    for candidate in (target, getattr(target, "_op", None)):
        schema = getattr(candidate, "_schema", None)
        if schema is not None:
            return schema.name
    return getattr(target, "__name__", str(target))


def _schema(node: torch.fx.Node) -> Any:
    for candidate in (node.target, getattr(node.target, "_op", None)):
        schema = getattr(candidate, "_schema", None)
        if schema is not None:
            return schema
    return None


def _argument(node: torch.fx.Node, name: str) -> Any:
    """The value the node passes for its operator's argument ``name`` (positional or
    keyword), or ``None``."""
    schema = _schema(node)
    if schema is None:
        return None
    for k, arg in enumerate(schema.arguments):
        if arg.name == name:
            if k < len(node.args):
                return node.args[k]
            return node.kwargs.get(name)
    return None


def storage(spec: Any) -> Any:
    """The spec that owns a spec's bytes: a view's base (``_ViewSpec._base``, along a
    chain), else the spec itself."""
    seen = set()
    while hasattr(spec, "_base") and id(spec) not in seen:
        seen.add(id(spec))
        spec = spec._base
    return spec


def _specs(value: Any) -> List[Any]:
    """The tensor specs a node argument holds (views resolved to their storage)."""
    out: List[Any] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, torch.fx.Node):
            out.extend(storage(s) for s in get_node_tensor_specs(v) if s is not None)
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
    return out


def _shape(value: Any) -> Optional[Tuple[str, ...]]:
    """A node's symbolic shape from its ``meta["val"]``, as text (so ``s0`` differs from
    ``128`` even when 128 is ``s0``'s upper bound), or ``None``."""
    if not isinstance(value, torch.fx.Node):
        return None
    val = value.meta.get("val")
    if isinstance(val, torch.Tensor):
        return tuple(str(d) for d in val.shape)
    return None


def _layout(spec: Any) -> Tuple[Any, ...]:
    return (
        tuple(getattr(spec, "shape", ()) or ()),
        getattr(spec, "dtype", None),
        tuple(getattr(spec, "dim_order", ()) or ()),
    )


def _is_mutable_buffer(node: Any, graph_signature: Any) -> Optional[str]:
    """The buffer's name when ``node`` is a placeholder of a buffer the program mutates."""
    if graph_signature is None or not isinstance(node, torch.fx.Node) or node.op != "placeholder":
        return None
    fqn = getattr(graph_signature, "inputs_to_buffers", {}).get(node.target)
    if fqn is not None and fqn in getattr(graph_signature, "buffers_to_mutate", {}).values():
        return fqn
    return None


def _out_spec(node: torch.fx.Node) -> Any:
    spec = node.meta.get("spec")
    if isinstance(spec, (list, tuple)):
        spec = spec[0] if spec else None
    return spec if isinstance(spec, TensorSpec) else None


def _written_at(node: torch.fx.Node) -> bool:
    """True for an out-variant node whose output is its own ``alloc`` (a fresh tensor
    the op writes)."""
    out = node.kwargs.get("out", node.kwargs.get("out0"))
    return (
        isinstance(out, torch.fx.Node)
        and out.op == "call_function"
        and out.target is memory.alloc
    )


class _Graph:
    """What the share rules need to know of a graph: node indices, each storage's
    readers (node indices; a view's readers are its base's), the graph's inputs,
    outputs and constants."""

    def __init__(self, graph_module: torch.fx.GraphModule, graph_signature: Any) -> None:
        self.nodes = list(graph_module.graph.nodes)
        self.index = {n: k for k, n in enumerate(self.nodes)}
        self.signature = graph_signature
        self.readers: Dict[int, List[int]] = {}
        self.inputs: Set[int] = set()
        self.outputs: Set[int] = set()
        self.output_node: Optional[torch.fx.Node] = None
        for k, node in enumerate(self.nodes):
            if node.op == "placeholder":
                self.inputs.update(id(storage(s)) for s in get_node_tensor_specs(node))
                continue
            if node.op == "output":
                self.output_node = node
                self.outputs.update(id(s) for s in _specs(node.args))
                self.outputs.update(
                    id(storage(s)) for s in get_node_tensor_specs(node) if s is not None
                )
                continue
            if node.op != "call_function" or node.target in (memory.alloc, memory.view):
                continue
            if node.target is operator.getitem:
                continue
            own = {id(storage(s)) for s in get_node_tensor_specs(node) if s is not None}
            for spec in _specs((node.args, node.kwargs)):
                if id(spec) in own and not _reads_own(node):
                    continue  # an out-variant node's own output: written, not read
                self.readers.setdefault(id(spec), []).append(k)

    def read_after(self, spec: Any, t: int, allowed: Sequence[int] = ()) -> bool:
        """True when a node after index ``t`` (other than those in ``allowed``) reads
        ``spec``'s storage."""
        return any(k > t and k not in allowed for k in self.readers.get(id(spec), ()))

    def shareable(self, spec: Any) -> bool:
        """Not a constant, graph input or output, view or alias."""
        return (
            isinstance(spec, TensorSpec)
            and storage(spec) is spec
            and not spec.const
            and getattr(spec, "storage_base", None) is None
            and id(spec) not in self.inputs
            and id(spec) not in self.outputs
        )


def _reads_own(node: torch.fx.Node) -> bool:
    """In-place ops (``copy_``, ``index_put_``) read the tensor they also hold."""
    name = op_name(node)
    return name.endswith("_") and not name.endswith("__")


def find_shares(graph_module: torch.fx.GraphModule, graph_signature: Any = None) -> List[Share]:
    """Every share of the graph's tensors, in node order (see the module doc). Specs are
    ExecuTorch's ``TensorSpec`` objects of the graph (``node.meta["spec"]``)."""
    if not isinstance(getattr(graph_module, "graph", None), torch.fx.Graph):
        return []  # not a graph (a test's stand-in): nothing to share
    g = _Graph(graph_module, graph_signature)
    shares: List[Share] = []
    for t, node in enumerate(g.nodes):
        if node.op != "call_function":
            continue
        name = op_name(node)
        if name in POINTWISE or name in BATCH_NORM:
            shares.extend(_in_place(g, node, t, name))
        elif name in CACHE_UPDATES:
            shares.extend(_cache_update(g, node, t, name))
        elif name in CONCAT:
            shares.extend(_concat(g, node, name))
    shares.extend(_write_backs(g))
    return shares


def _in_place(g: _Graph, node: torch.fx.Node, t: int, name: str) -> List[Share]:
    """``out`` in place of each elementwise input that dies at this node."""
    if not _written_at(node):
        return []
    out = _out_spec(node)
    if out is None or not g.shareable(out):
        return []
    names = POINTWISE.get(name) or (BATCH_NORM[name],)
    elementwise: Dict[int, List[Any]] = {}  # storage id -> the argument nodes reading it
    for arg_name in names:
        value = _argument(node, arg_name)
        if isinstance(value, torch.fx.Node):
            for spec in _specs(value):
                elementwise.setdefault(id(spec), []).append(value)
    rule = "batch_norm" if name in BATCH_NORM else "pointwise"
    shares = []
    seen = set()
    for value in [_argument(node, a) for a in names]:
        if not isinstance(value, torch.fx.Node):
            continue
        for x in _specs(value):
            if id(x) in seen or x is out or not g.shareable(x):
                continue
            seen.add(id(x))
            if not _same_elements(g, node, out, x, elementwise[id(x)]):
                continue
            if _read_elsewhere(node, x, names):
                continue
            lifetime = getattr(x, "lifetime", None) or [None, None]
            if lifetime[1] != t or g.read_after(x, t):
                continue  # another node reads it later
            shares.append(Share(out, x, "in_place", 0, t, node.name, name, rule))
    return shares


def _same_elements(g: _Graph, node: torch.fx.Node, out: Any, x: Any, args: List[Any]) -> bool:
    """``out`` and every argument reading ``x`` have the same shape (symbolic too: no
    broadcast), dtype and dim order, and ``x``'s bytes are exactly ``out``'s."""
    if _layout_bytes(x) != _layout_bytes(out) or getattr(x, "dtype", None) != out.dtype:
        return False
    out_shape = _shape(node)
    for arg in args:
        specs = _own_specs(arg)
        if len(specs) != 1 or _layout(specs[0]) != _layout(out):
            return False
        arg_shape = _shape(arg)
        if out_shape is not None and arg_shape is not None and arg_shape != out_shape:
            return False
    return True


def _own_specs(node: torch.fx.Node) -> List[Any]:
    """The specs of a node's own value. For a view (``memory.view``) that is the view's
    ``_ViewSpec``: its own shape and dim order over its base's bytes (ExecuTorch's
    ``get_node_tensor_specs`` gives the base's spec instead); none when it has none."""
    if node.op == "call_function" and node.target is memory.view:
        spec = node.meta.get("spec")
        return [spec] if isinstance(spec, TensorSpec) else []
    return [s for s in get_node_tensor_specs(node) if s is not None]


def _layout_bytes(spec: Any) -> Optional[int]:
    try:
        return int(spec.nbytes())
    except Exception:  # pragma: no cover - a spec ExecuTorch cannot size
        return None


def _read_elsewhere(node: torch.fx.Node, x: Any, names: Sequence[str]) -> bool:
    """True when the node passes ``x``'s storage in an argument that is not one of the
    elementwise ``names`` (a weight, an index, ...)."""
    schema = _schema(node)
    if schema is None:
        return True
    for k, arg in enumerate(schema.arguments):
        if arg.name in names or arg.kwarg_only and arg.name.startswith("out"):
            continue
        value = node.args[k] if k < len(node.args) else node.kwargs.get(arg.name)
        if any(s is x for s in _specs(value)):
            return True
    return False


def _write_back(g: _Graph, placeholder: torch.fx.Node, result: torch.fx.Node) -> Optional[int]:
    """The index of the node ``copy_(placeholder, result)``, or ``None``."""
    for user in placeholder.users:
        if (
            user.op == "call_function"
            and op_name(user) == _COPY
            and len(user.args) >= 2
            and user.args[0] is placeholder
            and user.args[1] is result
        ):
            return g.index[user]
    return None


def _cache_update(g: _Graph, node: torch.fx.Node, t: int, name: str) -> List[Share]:
    """The result of updating a mutable buffer, inside that buffer."""
    if not _written_at(node):
        return []
    placeholder = _argument(node, "self")
    fqn = _is_mutable_buffer(placeholder, g.signature)
    if fqn is None:
        return []
    cache = storage(_out_spec(placeholder))
    result = _out_spec(node)
    if cache is None or result is None or result.const or storage(result) is not result:
        return []
    if getattr(result, "storage_base", None) is not None or id(result) in g.outputs:
        return []
    if _layout(result) != _layout(cache) or _layout_bytes(result) != _layout_bytes(cache):
        return []
    written = _write_back(g, placeholder, node)
    if written is None or written <= t:
        return []
    # The buffer's old value is not read after the update (its write-back only writes
    # it), and nothing reads the result after the write-back.
    if g.read_after(cache, t, allowed=(written,)):
        return []
    if any(k > written for k in g.readers.get(id(result), ())):
        return []
    # The update reads the buffer only as `self`.
    for arg in _schema(node).arguments:
        if arg.name in ("self", "out"):
            continue
        if any(s is cache for s in _specs(_argument(node, arg.name))):
            return []
    return [Share(result, cache, "inside", 0, None, node.name, name, "cache_update")]


def _concat(g: _Graph, node: torch.fx.Node, name: str) -> List[Share]:
    """Each input of ``cat`` inside the output, at the bytes of the inputs before it,
    when the output's slices along ``dim`` are contiguous."""
    if not _written_at(node):
        return []
    out = _out_spec(node)
    tensors = _argument(node, "tensors")
    if out is None or not g.shareable(out) or not isinstance(tensors, (list, tuple)):
        return []
    shape = tuple(getattr(out, "shape", ()) or ())
    dim = _argument(node, "dim")
    dim = 0 if dim is None else int(dim)
    if not shape or not -len(shape) <= dim < len(shape):
        return []
    dim %= len(shape)
    default_order = tuple(range(len(shape)))
    if tuple(getattr(out, "dim_order", default_order) or default_order) != default_order:
        return []
    if any(int(d) != 1 for d in shape[:dim]):
        return []  # the slices along dim are strided
    inputs: List[Any] = []
    for value in tensors:
        specs = list(get_node_tensor_specs(value)) if isinstance(value, torch.fx.Node) else []
        if len(specs) != 1 or specs[0] is None:
            return []
        inputs.append(specs[0])
    shares: List[Share] = []
    offset = 0
    for x in inputs:
        size = _layout_bytes(x)
        if size is None:
            return shares
        x_shape = tuple(getattr(x, "shape", ()) or ())
        fits = (
            len(x_shape) == len(shape)
            and all(int(a) == int(b) for j, (a, b) in enumerate(zip(x_shape, shape)) if j != dim)
            and getattr(x, "dtype", None) == out.dtype
            and tuple(getattr(x, "dim_order", default_order) or default_order) == default_order
        )
        listed_once = sum(1 for y in inputs if y is x) == 1
        if listed_once and fits and g.shareable(x) and storage(x) is x:
            shares.append(Share(x, out, "inside", offset, None, node.name, name, "concat"))
        offset += size
    return shares


def _write_backs(g: _Graph) -> List[Share]:
    """Each output-node spec that stands for a mutable buffer's new value (the output
    lists ``copy_(buffer, ...)``), inside that buffer: nothing reads it."""
    out = g.output_node
    if out is None or not out.args:
        return []
    values = out.args[0] if isinstance(out.args[0], (list, tuple)) else [out.args[0]]
    specs = out.meta.get("spec")
    if not isinstance(specs, (list, tuple)) or len(specs) != len(values):
        return []
    shares = []
    for value, spec in zip(values, specs):
        if not isinstance(value, torch.fx.Node) or op_name(value) != _COPY:
            continue
        placeholder = value.args[0] if value.args else None
        if _is_mutable_buffer(placeholder, g.signature) is None:
            continue
        cache = storage(_out_spec(placeholder))
        if not isinstance(spec, TensorSpec) or cache is None or spec is cache:
            continue
        if spec.const or storage(spec) is not spec or getattr(spec, "storage_base", None) is not None:
            continue
        if _layout_bytes(spec) != _layout_bytes(cache) or id(spec) in g.readers:
            continue
        if any(storage(s) is spec for n in g.nodes if n is not out
               for s in get_node_tensor_specs(n) if s is not None):
            continue  # some other node holds it
        shares.append(Share(spec, cache, "inside", 0, None, value.name, _COPY, "write_back"))
    return shares


def producers(graph_module: torch.fx.GraphModule) -> Dict[int, Tuple[str, str]]:
    """``id(spec) -> (node name, operator)`` of the node that writes each spec (a
    placeholder's own name and ``"placeholder"`` for graph inputs), for reports."""
    out: Dict[int, Tuple[str, str]] = {}
    if not isinstance(getattr(graph_module, "graph", None), torch.fx.Graph):
        return out
    for node in graph_module.graph.nodes:
        if node.op == "placeholder":
            for s in get_node_tensor_specs(node):
                out.setdefault(id(storage(s)), (node.name, "placeholder"))
        elif node.op == "call_function" and node.target not in (
            memory.alloc, memory.view, operator.getitem
        ):
            for s in get_node_tensor_specs(node):
                if s is not None:
                    out.setdefault(id(storage(s)), (node.name, op_name(node)))
        elif node.op == "output":
            for s in get_node_tensor_specs(node):
                if s is not None:
                    out.setdefault(id(storage(s)), (node.name, "output"))
    return out
