"""The ``MemoryPlanningPass`` of ``memplan.executorch`` (this module is its body): it
tells memplan's algorithm which method and submodule each call plans, keeps the reports,
and places the mutable buffers that ``share_mutable_buffers=True`` shares between methods.

**Shared mutable buffers.** ExecuTorch's own pass leaves the mutable buffers (an LLM's
KV caches) out of each method's plan, demands every other tensor in arena 1, and after
every method puts them in arena 2. memplan's pass leaves them out too but demands
nothing of the other arenas: after every method is planned (``run_multimethod``), they go
in an arena of their own, ``mem_id`` one above every arena of every method, each buffer
at one offset, the same in every method::

    mem_id:   1 (fast)     2 (slow, with fast_capacity)    3 (shared)
    prefill   [ plan  ]    [ plan        ]                 [k0|v0|k1|v1]
    decode    [plan]       [ plan   ]                      [k0|v0|k1|v1]   same offsets

ExecuTorch's runtime gives the methods of a program one set of arenas on the host, so
decode reads the caches prefill wrote. The arena is checked by memplan's checker, and
added to every method's ``non_const_buffer_sizes`` and its report.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, Dict, List, Tuple

import torch
from executorch.exir.memory_planning import (
    MemoryPlanningAlgorithmSuite,
    Verifier,
    apply_algo,
)
from executorch.exir.pass_base import PassResult
from executorch.exir.passes.memory_planning_pass import (
    MemoryPlanningPass,
    _insert_mutable_buffer_specs,
)

import memplan

from . import executorch as _et


def _refuse_sharing_without_memplans_pass(option: str) -> None:
    """Raises ``memplan.InputError`` when the ExecuTorch pass calling the algorithm
    shares mutable buffers but is not memplan's: ExecuTorch's own pass would then fail
    with a message that names neither the option nor memplan."""
    frame = inspect.currentframe()
    try:
        f = frame.f_back if frame is not None else None
        while f is not None:
            caller = f.f_locals.get("self")
            if isinstance(caller, MemoryPlanningPass):
                if caller.share_mutable_buffers and not isinstance(caller, _MemplanPass):
                    raise memplan.InputError(
                        f"share_mutable_buffers=True with memplan's {option}= needs memplan's "
                        "pass: use memplan.executorch.memory_planning_pass(..., "
                        "share_mutable_buffers=True) (or banked_memory_planning_pass), not "
                        "ExecuTorch's MemoryPlanningPass around memplan's Algorithm"
                    )
                return
            f = f.f_back
    finally:
        del frame


class _MemplanPass(MemoryPlanningPass):
    """ExecuTorch's ``MemoryPlanningPass`` with memplan's ``Algorithm``: it tells the
    algorithm which method and submodule each call plans, and keeps the reports.

    With ``share_mutable_buffers=True`` it places the shared mutable buffers itself
    (``run_multimethod``): each in one arena of their own, one above every arena of
    every method, at one offset that is the same in every method, so the other arenas
    may be planned in any way (ExecuTorch's pass requires them all in arena 1)."""

    def __init__(self, algorithm: "_et.Algorithm", **pass_options: Any) -> None:
        super().__init__(
            memory_planning_algo=MemoryPlanningAlgorithmSuite(algo_list=[algorithm]),
            **pass_options,
        )
        self.algorithm = algorithm
        self._runs = 0
        # With share_mutable_buffers: (method's graph module, index of its GraphReport).
        self._method_graphs: List[Tuple[Any, int]] = []

    @property
    def reports(self) -> List[_et.GraphReport]:
        """One ``GraphReport`` per graph planned, in order: for each method, its
        control-flow submodules, then the method's own graph."""
        return self.algorithm.graphs

    def run(self, graph_module: Any, graph_signature: Any = None) -> Any:
        algo = self.algorithm
        algo._method = _et._method_name() or f"method #{self._runs}"
        algo._submodules = {
            id(m): name
            for name, m in graph_module.named_modules()
            if name and isinstance(m, torch.fx.GraphModule)
        }
        self._runs += 1
        try:
            if not self.share_mutable_buffers:
                return super().run(graph_module, graph_signature)
            return self._run_sharing(graph_module, graph_signature)
        finally:
            algo._method, algo._submodules = "", {}

    def _run_sharing(self, graph_module: Any, graph_signature: Any) -> Any:
        """ExecuTorch's ``run`` with ``share_mutable_buffers``, without its demand that
        every planned tensor be in arena 1: the mutable buffers are left out of the plan
        and collected for ``run_multimethod``."""
        self._set_alloc_node_spec(graph_module)
        apply_algo(
            self.memory_planning_algo,
            graph_module,
            self.alignment,
            graph_signature,
            self.alloc_graph_input,
            self.alloc_graph_output,
            False,  # the shared mutable buffers are placed in run_multimethod
            self.enable_non_cpu_memory_planning,
        )
        if graph_signature is not None:
            self.state.graph_modules.append(graph_module)
            _insert_mutable_buffer_specs(self.state, graph_module, graph_signature)
            self._method_graphs.append((graph_module, len(self.algorithm.graphs) - 1))
        Verifier(
            graph_module, self.alloc_graph_input, self.alloc_graph_output, False, graph_signature
        ).verify_graph_input_output()
        return PassResult(graph_module, True)

    def run_multimethod(self) -> None:
        """Places the shared mutable buffers (``share_mutable_buffers=True``) after every
        method is planned: one arena, ``mem_id`` one above the largest of every method,
        each buffer at one offset, the same in every method (a buffer of the same name
        must have the same size everywhere). The arena is checked by memplan's checker
        and added to every method's ``non_const_buffer_sizes`` and report."""
        if not self.share_mutable_buffers:
            return super().run_multimethod()
        modules = self.state.graph_modules
        if not modules:
            return None
        shared_id = max(2, *(len(gm.meta["non_const_buffer_sizes"]) for gm in modules))
        buffers: List[Tuple[str, int, int]] = []  # (name, offset, size)
        offset = 0
        for fqn, found in self.state.mutable_buffers.items():
            specs = list(found) + list(self.state.maybe_mutable_buffers.get(fqn, ()))
            sizes = sorted({spec.realign(self.alignment) for spec in specs})
            if len(sizes) != 1:
                raise memplan.InputError(
                    f"share_mutable_buffers: the mutable buffer {fqn!r} has different sizes "
                    f"in different methods ({', '.join(map(str, sizes))} bytes); a shared "
                    "buffer must be the same tensor in every method"
                )
            for spec in specs:
                spec.mem_id = shared_id
                spec.mem_offset = offset
            buffers.append((fqn, offset, sizes[0]))
            offset += sizes[0]
        if buffers:  # always live, so they must not overlap at all
            memplan.check(
                memplan.Problem([(n, 0, 1, size, self.alignment) for n, _, size in buffers]),
                [o for _, o, _ in buffers],
            )
        for gm in modules:
            sizes = gm.meta["non_const_buffer_sizes"]
            sizes.extend([0] * (shared_id - len(sizes)))
            sizes.append(offset)
        arena = _et.ArenaReport(
            mem_id=shared_id, specs=len(buffers), buffers=len(buffers), reserved=0,
            max_load=offset, height=offset, lower_bound=offset, optimal=True,
            planner="shared", elapsed=0.0, size=offset, shared=True,
        )
        graphs = self.algorithm.graphs
        for gm, k in self._method_graphs:
            r = graphs[k]
            graphs[k] = dataclasses.replace(
                r,
                arenas=r.arenas + (arena,),
                sizes=tuple(gm.meta["non_const_buffer_sizes"]),
                # ExecuTorch's own pass puts the shared arena right after arena 1.
                default_sizes=r.default_sizes + (offset,),
            )
        return None


class _VerifiedMemoryPlanningPass(_MemplanPass):
    """A ``MemoryPlanningPass`` that also runs ExecuTorch's ``Verifier`` on the storage
    reuse of every plan (ExecuTorch runs it only for its algorithm named "greedy")."""

    def run(self, graph_module: Any, graph_signature: Any = None) -> Any:
        result = super().run(graph_module, graph_signature)
        Verifier(
            graph_module,
            self.alloc_graph_input,
            self.alloc_graph_output,
            self.alloc_mutable_buffers and not self.share_mutable_buffers,
            graph_signature,
        ).verify_storage_reuse(self.allow_lifetime_and_storage_overlap)
        return result


def _check_pass_options(pass_options: Dict[str, Any], door: str, ours: str) -> None:
    """Raises ``memplan.InputError`` for an option ``MemoryPlanningPass`` does not take
    (``door`` names the function, ``ours`` its own options) and for a
    ``share_mutable_buffers`` combination that cannot work (ExecuTorch would fail
    later)."""
    known = set(inspect.signature(MemoryPlanningPass.__init__).parameters) - {
        "self", "memory_planning_algo"
    }
    unknown = sorted(set(pass_options) - known)
    if unknown:
        raise memplan.InputError(
            f"unknown option {unknown[0]!r} of {door}: expected one of "
            f"{sorted(known)}, or {ours}"
        )
    share = pass_options.get("share_mutable_buffers", False)
    if not isinstance(share, bool):
        raise memplan.InputError(f"share_mutable_buffers must be True or False, got {share!r}")
    if share and pass_options.get("alloc_mutable_buffers", True) is not True:
        raise memplan.InputError(
            "share_mutable_buffers=True needs alloc_mutable_buffers=True: the shared "
            "buffers are the mutable buffers memplan places (in an arena of their own)"
        )
