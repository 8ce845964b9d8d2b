"""Constants folded by memplan's pass (``memory_planning_pass(fold_constants=True)``, on
by default with ``in_place=True``), and the run-time copies of constants a report names.

Lowering to the edge dialect leaves some tensors computed from constants alone at run
time: a ``Linear``'s weight transposed (``permute_copy`` of a parameter), a scale
broadcast. Each is an activation the size of a weight, and often the arena's peak, which
no planner or share can lower (mobilenet_v3_small: 4,096,000 B of its 4,104,096).
ExecuTorch's ``constant_prop_pass`` computes them once and stores them in the program
as constants. It works on the edge program; a memory-planning pass sees only the graph
``to_executorch`` has already lowered (out variants, specs). So when ``to_executorch``
calls memplan's pass with folding on, the pass:

1. finds the method's edge program in ``to_executorch``'s frame (the ``program`` it
   lowers, ``config``, and the ``EdgeProgramManager``);
2. folds it in place with ExecuTorch's ``constant_prop_pass``, as
   ``ExecutorchBackendConfig(do_quant_fusion_and_const_prop=True)`` does (which also
   fuses quantized patterns; with that option on, the pass folds nothing more);
3. lowers the folded program again with ``to_executorch``'s own passes
   (``edge_to_executorch_passes``, then the external-constant tagging) and plans that
   graph, which ``to_executorch`` then emits with the folded constants.

Nothing is folded when the pass runs some other way (no ``to_executorch`` frame) or when
the program has nothing to fold. The report's ``GraphReport.folded_bytes`` gives the
bytes folding added to the program's constants (less what it removed: a weight used only
by its transpose is replaced, not kept). With folding off, ``PeakTensor.constant`` marks
a tensor at a peak computed from constants alone, and ``GraphReport.hint`` says so.
"""

from __future__ import annotations

import inspect
from typing import Any, Optional, Set, Tuple

import torch
from executorch.exir import memory
from executorch.exir.memory_planning import get_node_tensor_specs


def _to_executorch_scope() -> Optional[dict]:
    """The locals of ``EdgeProgramManager.to_executorch`` while it calls the pass: its
    ``program`` (the method's edge program), ``config``, ``name`` and ``self``; ``None``
    when the pass runs some other way."""
    frame = inspect.currentframe()
    try:
        f = frame.f_back if frame is not None else None
        while f is not None:
            scope = f.f_locals
            if (
                f.f_code.co_name == "to_executorch"
                and isinstance(scope.get("program"), torch.export.ExportedProgram)
                and isinstance(scope.get("name"), str)
                and hasattr(scope.get("config"), "do_quant_fusion_and_const_prop")
                and hasattr(scope.get("self"), "compile_config")
            ):
                return scope
            f = f.f_back
        return None
    finally:
        del frame


def _constant_bytes(program: Any) -> int:
    """Bytes of the program's constant tensors (parameters, buffers, lifted constants)."""
    seen = set()
    total = 0
    for table in (program.state_dict, program.constants):
        for t in table.values():
            if isinstance(t, torch.Tensor) and id(t) not in seen:
                seen.add(id(t))
                total += t.numel() * t.element_size()
    return total


def _shape_of(program: Any) -> Tuple[str, ...]:
    return tuple(f"{n.op}:{n.target}" for n in program.graph.nodes)


def fold(graph_module: Any) -> Optional[Tuple[Any, Any, int]]:
    """Folds the constants of the method ``to_executorch`` is lowering (module doc):
    returns the lowered graph to plan instead of ``graph_module``, its signature and the
    bytes folding added to the constants; ``None`` when there is nothing to fold, the
    program was folded already (``do_quant_fusion_and_const_prop``) or the pass runs
    outside ``to_executorch``."""
    scope = _to_executorch_scope()
    if scope is None:
        return None
    program, config, name, manager = scope["program"], scope["config"], scope["name"], scope["self"]
    if config.do_quant_fusion_and_const_prop:
        return None  # ExecuTorch folded it before lowering
    from executorch.exir.passes.constant_prop_pass import constant_prop_pass
    from executorch.exir.passes.spec_prop_pass import SpecPropPass
    from executorch.exir.program import _program
    from torch.export.graph_signature import ExportGraphSignature

    before, shape = _constant_bytes(program), _shape_of(program)
    constant_prop_pass(program)
    if _shape_of(program) == shape:
        return None  # nothing folded: plan the graph to_executorch lowered
    gm = program.graph_module
    passes = _program.edge_to_executorch_passes(
        config, name, edge_compile_config=manager.compile_config
    )
    for p in passes:
        gm = p(gm).graph_module
        if isinstance(p, SpecPropPass):
            p.update_placeholder_tensor_specs(program, gm)
    # The constant tagging to_executorch does between its passes and the planning.
    external = getattr(config, "external_constants", False)
    if isinstance(external, bool) and external:
        gm = _program.external_constants_pass(gm).graph_module
    elif callable(external):
        gm = _program.external_constants_pass(gm, external).graph_module
    if getattr(config, "external_mutable_weights", False):
        gm = _program.external_mutable_weights_pass(gm, program).graph_module
    signature = ExportGraphSignature(
        input_specs=program.graph_signature.input_specs,
        output_specs=program.graph_signature.output_specs,
    )
    return gm, signature, _constant_bytes(program) - before


def constant_copies(graph_module: Any) -> Set[int]:
    """``id(spec)`` of every tensor the graph computes from constants alone at run time
    (a ``permute_copy`` of a weight, a chain of such ops): what folding would store in
    the program instead. Constants are the placeholders whose spec is ``const`` and
    ``get_attr`` tensors; an op's ``out`` (its ``alloc``) is not an input."""
    constant: Set[Any] = set()
    out: Set[int] = set()
    if not isinstance(getattr(graph_module, "graph", None), torch.fx.Graph):
        return out  # an algorithm called on a stand-in for a graph: nothing to name
    for node in graph_module.graph.nodes:
        if node.op == "placeholder":
            if getattr(node.meta.get("spec"), "const", False):
                constant.add(node)
        elif node.op == "get_attr":
            constant.add(node)
        elif node.op == "call_function" and node.target is not memory.alloc:
            inputs = [a for a in node.all_input_nodes if a.target is not memory.alloc]
            if inputs and all(a in constant for a in inputs):
                constant.add(node)
                out.update(id(s) for s in get_node_tensor_specs(node) if s is not None)
    return out
