"""The ``MemoryPlanningPass`` of ``memplan.executorch`` (this module is its body): it
tells memplan's algorithm which method and submodule each call plans, keeps the reports,
and places the mutable buffers that ``share_mutable_buffers=True`` shares between methods.

**Shared mutable buffers.** ExecuTorch's own pass leaves the mutable buffers (an LLM's
KV caches) out of each method's plan, demands every other tensor in arena 1, and after
every method puts them in arena 2. memplan's pass leaves them out too but demands
nothing of arena 1: after every method is planned (``run_multimethod``), they go in
arena 2 (``SHARED_ID``), each buffer at one offset, the same in every method; with
``fast_capacity`` the slow arena is then 3, and the banked pass refuses a bank at 2::

    mem_id:   1 (fast)     2 (shared)        3 (slow, with fast_capacity)
    prefill   [ plan  ]    [k0|v0|k1|v1]     [ plan        ]
    decode    [plan]       [k0|v0|k1|v1]     [ plan   ]          same offsets

mem_id 2 because ExecuTorch's C++ ``Module(share_memory_arenas=true)`` gives every
method the same memory for mem_id 1 and 2 only, and fresh memory above
(``extension/module/module.cpp``); its Python runtime shares every arena. So decode
reads the caches prefill wrote on both. The arena is checked by memplan's checker, and
added to every method's ``non_const_buffer_sizes`` and its report.

**In place** (``in_place=True``). ExecuTorch applies the plan memplan's algorithm
returns; the pass then links each share the plan took as ExecuTorch's
``TensorSpec.storage_base`` (with ``storage_base_offset``) of the tensor that took the
storage, so that ExecuTorch's ``Verifier`` accepts two specs whose lifetimes overlap
(at the op, for an in-place share) and whose bytes do. With ``share_mutable_buffers``,
a cache update's result and a write-back output are not planned with the method: they
are placed inside their cache in the shared arena (``run_multimethod``), checked there
by memplan's checker, and the method's inputs and outputs are verified after that.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, Dict, List, Optional, Tuple, Union

import torch
from executorch.exir.memory_planning import (
    MemoryPlanningAlgorithmSuite,
    Verifier,
    apply_algo,
    get_node_tensor_specs,
)
from executorch.exir.pass_base import PassResult
from executorch.exir.passes.memory_planning_pass import (
    MemoryPlanningPass,
    _insert_mutable_buffer_specs,
)

from . import _memplan
from . import _executorch_fold as _fold
from . import _executorch_algorithm as _et
from . import _executorch_specs as _specs


#: The arena of the mutable buffers that ``share_mutable_buffers=True`` shares between
#: methods. ExecuTorch's C++ ``Module(share_memory_arenas=true)`` gives every method
#: the same buffers for mem_id 1 and 2 only (``extension/module/module.cpp``:
#: "Only share for mem_id=1,2"), and fresh ones above, so shared state must be here.
SHARED_ID = 2

_RUNNER_RULE = (
    "ExecuTorch's C++ Module(share_memory_arenas=true) shares only mem_id 1 and 2 "
    "between methods and gives every arena above 2 fresh memory per method, so shared "
    "state anywhere else would not be seen by the next method"
)


class _MemplanPass(MemoryPlanningPass):
    """ExecuTorch's ``MemoryPlanningPass`` with memplan's ``Algorithm``: it tells the
    algorithm which method and submodule each call plans, and keeps the reports.

    With ``share_mutable_buffers=True`` it places the shared mutable buffers itself
    (``run_multimethod``): in arena 2, each at one offset that is the same in every
    method, so the other arenas may be planned in any way but 2 (ExecuTorch's pass
    requires them all in arena 1)."""

    #: Marks memplan's passes for ``_executorch_algorithm``, which cannot import them.
    _memplans_pass = True

    def __init__(
        self, algorithm: "_et.Algorithm", fold_constants: bool = False, **pass_options: Any
    ) -> None:
        super().__init__(
            memory_planning_algo=MemoryPlanningAlgorithmSuite(algo_list=[algorithm]),
            **pass_options,
        )
        self.algorithm = algorithm
        #: Fold each method's constants before planning it (``_executorch_fold``).
        self.fold_constants = fold_constants
        self._runs = 0
        # With share_mutable_buffers: (method's graph module, index of its GraphReport,
        # its signature).
        self._method_graphs: List[Tuple[Any, int, Any]] = []
        # With share_mutable_buffers and in_place: (method's graph module, the shares
        # that place a spec inside its mutable buffer).
        self._deferred: List[Tuple[Any, List[Any]]] = []

    @property
    def reports(self) -> List[_et.GraphReport]:
        """One ``GraphReport`` per graph planned, in order: for each method, its
        control-flow submodules, then the method's own graph."""
        return self.algorithm.graphs

    def run(self, graph_module: Any, graph_signature: Any = None) -> Any:
        algo = self.algorithm
        algo._method = _specs._method_name() or f"method #{self._runs}"
        algo._submodules = {
            id(m): name
            for name, m in graph_module.named_modules()
            if name and isinstance(m, torch.fx.GraphModule)
        }
        self._runs += 1
        folded: Optional[int] = None
        if self.fold_constants:
            found = _fold.fold(graph_module)
            folded = 0
            if found is not None:
                graph_module, graph_signature, folded = found
        self._planned = (graph_module, graph_signature)  # the graph planned, folded or not
        first_report = len(algo.graphs)
        algo.taken = []
        algo._defer_mutable = bool(self.share_mutable_buffers and getattr(algo, "in_place", False))
        algo._shared_id = SHARED_ID if self.share_mutable_buffers else None
        first_deferred = len(getattr(algo, "deferred", []))
        try:
            if not self.share_mutable_buffers:
                result = super().run(graph_module, graph_signature)
            else:
                result = self._run_sharing(graph_module, graph_signature)
            _link(algo.taken)
            if algo._defer_mutable:
                self._deferred.append((graph_module, algo.deferred[first_deferred:]))
            for k in range(first_report, len(algo.graphs)):
                if not algo.graphs[k].submodule:  # the method's own graph
                    algo.graphs[k] = dataclasses.replace(algo.graphs[k], folded_bytes=folded)
            return result
        finally:
            algo._method, algo._submodules = "", {}
            algo._defer_mutable, algo._shared_id = False, None

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
            self._method_graphs.append(
                (graph_module, len(self.algorithm.graphs) - 1, graph_signature)
            )
        if not getattr(self.algorithm, "_defer_mutable", False):
            Verifier(
                graph_module, self.alloc_graph_input, self.alloc_graph_output, False,
                graph_signature,
            ).verify_graph_input_output()
        # else: its write-back outputs are placed in run_multimethod, which verifies.
        return PassResult(graph_module, True)

    def run_multimethod(self) -> None:
        """Places the shared mutable buffers (``share_mutable_buffers=True``) after every
        method is planned: arena 2 (``SHARED_ID``; a method that planned anything there
        raises ``memplan.InputError``, naming the C++ runner's rule), each buffer at one
        offset, the same in every method (a buffer of the same name must have the same
        size everywhere). The arena is checked by memplan's checker and added to every
        method's ``non_const_buffer_sizes`` and report."""
        if not self.share_mutable_buffers:
            return super().run_multimethod()
        modules = self.state.graph_modules
        if not modules:
            return None
        shared_id = SHARED_ID
        for gm, k, _ in self._method_graphs:
            sizes = gm.meta["non_const_buffer_sizes"]
            if len(sizes) > shared_id and sizes[shared_id]:
                raise _memplan.InputError(
                    f"share_mutable_buffers=True: method {self.algorithm.graphs[k].method!r} "
                    f"plans {sizes[shared_id]} bytes in mem_id {shared_id}, where the shared "
                    f"mutable buffers go: {_RUNNER_RULE}; leave mem_id {shared_id} to them "
                    "(banks and pins at mem_id 1 and 3 or above)"
                )
        buffers: List[Tuple[str, int, int]] = []  # (name, offset, size)
        offset = 0
        for fqn, found in self.state.mutable_buffers.items():
            specs = list(found) + list(self.state.maybe_mutable_buffers.get(fqn, ()))
            sizes = sorted({spec.realign(self.alignment) for spec in specs})
            if len(sizes) != 1:
                raise _memplan.InputError(
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
            _memplan.check(
                _memplan.Problem([(n, 0, 1, size, self.alignment) for n, _, size in buffers]),
                [o for _, o, _ in buffers],
            )
        self._place_deferred(shared_id, buffers)
        for gm in modules:
            sizes = gm.meta["non_const_buffer_sizes"]
            sizes.extend([0] * (shared_id + 1 - len(sizes)))
            sizes[shared_id] = offset
        arena = _et.ArenaReport(
            mem_id=shared_id, specs=len(buffers), buffers=len(buffers), reserved=0,
            max_load=offset, height=offset, lower_bound=offset, optimal=True,
            planner="shared", elapsed=0.0, size=offset, shared=True,
        )
        graphs = self.algorithm.graphs
        for gm, k, gs in self._method_graphs:
            r = graphs[k]
            # ExecuTorch's own pass puts the shared arena right after arena 1, as here.
            default = list(r.default_sizes)  # () when ExecuTorch's banked planner failed
            if default:
                default.extend([0] * (shared_id + 1 - len(default)))
                default[shared_id] += offset
            graphs[k] = dataclasses.replace(
                r,
                # The specs placed inside the buffers (in_place) count as shares, and
                # the bytes they save, on the arenas that hold them without in_place.
                arenas=tuple(sorted(r.arenas + (arena,), key=lambda a: a.mem_id)),
                sizes=tuple(gm.meta["non_const_buffer_sizes"]),
                default_sizes=tuple(default),
            )
            if self._deferred:
                Verifier(
                    gm, self.alloc_graph_input, self.alloc_graph_output, False, gs
                ).verify_graph_input_output()
        return None

    def _place_deferred(self, shared_id: int, buffers: List[Tuple[str, int, int]]) -> None:
        """Places each method's cache updates and write-back outputs (``in_place`` with
        ``share_mutable_buffers``) inside their mutable buffer in the shared arena, links
        them as its ``storage_base``, gives them one object id per buffer (above the
        method's), and checks each method's shared arena with memplan's checker (the
        buffers live over the whole method, each placed spec inside its buffer only)."""
        fqn_of = {
            id(spec): fqn
            for fqn, found in self.state.mutable_buffers.items()
            for spec in list(found) + list(self.state.maybe_mutable_buffers.get(fqn, ()))
        }
        order = {fqn: k for k, (fqn, _, _) in enumerate(buffers)}
        for gm, deferred in self._deferred:
            if not deferred:
                continue
            objs = [
                spec.mem_obj_id
                for node in gm.graph.nodes
                for spec in get_node_tensor_specs(node)
                if spec is not None and getattr(spec, "mem_obj_id", None) is not None
            ]
            first_obj = max(objs, default=-1) + 1
            end = len(gm.graph.nodes)
            items = [(fqn, 0, end, size, self.alignment) for fqn, _, size in buffers]
            offsets = [o for _, o, _ in buffers]
            shares = []
            for k, share in enumerate(deferred):
                spec, cache, inner = share.buffer, share.target, share.offset
                fqn = fqn_of.get(id(cache))
                if fqn is None or cache.mem_id != shared_id or cache.mem_offset is None:
                    raise _memplan.CheckError(
                        f"in_place: {_specs._describe(spec)} was to go inside a shared mutable "
                        f"buffer, but {_specs._describe(cache)} was not placed in the shared arena"
                    )
                spec.mem_id = shared_id
                spec.mem_offset = cache.mem_offset + inner
                spec.mem_obj_id = first_obj + order[fqn]
                spec.storage_base = cache
                spec.storage_base_offset = inner
                first, last = spec.lifetime
                items.append((f"in {fqn} #{k}", first, last + 1, spec.allocated_memory, self.alignment))
                offsets.append(spec.mem_offset)
                shares.append((f"in {fqn} #{k}", fqn, "inside", inner, True))
            _memplan.check(_memplan.Problem(items, shares=shares), offsets)


class _VerifiedMemoryPlanningPass(_MemplanPass):
    """A ``MemoryPlanningPass`` that also runs ExecuTorch's ``Verifier`` on the storage
    reuse of every plan (ExecuTorch runs it only for its algorithm named "greedy"). With
    ``share_mutable_buffers`` and ``in_place``, after the shared arena is placed."""

    def run(self, graph_module: Any, graph_signature: Any = None) -> Any:
        result = super().run(graph_module, graph_signature)
        graph_module, graph_signature = self._planned  # with fold_constants, the folded one
        if self._deferred and self._deferred[-1][0] is graph_module:
            return result  # verified in run_multimethod, once its specs are placed
        self._verify(graph_module, graph_signature)
        return result

    def run_multimethod(self) -> None:
        super().run_multimethod()
        for gm, _ in self._deferred:
            signature = next((gs for g, _, gs in self._method_graphs if g is gm), None)
            self._verify(gm, signature)

    def _verify(self, graph_module: Any, graph_signature: Any) -> None:
        Verifier(
            graph_module,
            self.alloc_graph_input,
            self.alloc_graph_output,
            self.alloc_mutable_buffers and not self.share_mutable_buffers,
            graph_signature,
        ).verify_storage_reuse(self.allow_lifetime_and_storage_overlap)


def _link(taken: List[Any]) -> None:
    """Links each share the plan took (``in_place``) as ExecuTorch's ``storage_base`` of
    the spec that took the storage, once ExecuTorch has applied memplan's plan (a share
    whose specs another algorithm of the suite placed apart is left unlinked)."""
    for share in taken:
        spec, base, inner = share.buffer, share.target, share.offset
        if (
            spec.mem_id == base.mem_id
            and spec.mem_offset is not None
            and base.mem_offset is not None
            and spec.mem_offset == base.mem_offset + inner
        ):
            spec.storage_base = base
            spec.storage_base_offset = inner


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
        raise _memplan.InputError(
            f"unknown option {unknown[0]!r} of {door}: expected one of "
            f"{sorted(known)}, or {ours}"
        )
    share = pass_options.get("share_mutable_buffers", False)
    if not isinstance(share, bool):
        raise _memplan.InputError(f"share_mutable_buffers must be True or False, got {share!r}")
    if share and pass_options.get("alloc_mutable_buffers", True) is not True:
        raise _memplan.InputError(
            "share_mutable_buffers=True needs alloc_mutable_buffers=True: the shared "
            "buffers are the mutable buffers memplan places (in an arena of their own)"
        )


def memory_planning_pass(
    time_limit: Optional[float] = None,
    planner: str = "auto",
    threads: int = 0,
    seed: Optional[int] = None,
    verify: bool = False,
    fast_capacity: Optional[int] = None,
    work_limit: Optional[Union[int, float]] = None,
    in_place: bool = False,
    fold_constants: Optional[bool] = None,
    **pass_options: Any,
) -> MemoryPlanningPass:
    """A ready ``MemoryPlanningPass`` that plans with memplan, for
    ``ExecutorchBackendConfig(memory_planning_pass=...)``.

    ``work_limit`` (work units per arena; ``None``: memplan's default, the same ``.pte`` on
    every run), ``time_limit`` (seconds per graph, a wall-clock limit instead; see the
    module's docs), ``planner``, ``threads`` and ``seed`` go to ``memplan.plan``; ``fast_capacity`` to
    ``Algorithm`` (arena 1 under it, the rest spilled to a new arena). ``in_place=True``
    lets a tensor take the storage of an input that dies at its op, for the ops
    ``memplan._executorch_inplace`` lists (pointwise ops, batch norm, KV-cache updates
    into their cache), where that lowers the plan; off by default, as a user's own
    kernels may not be alias-safe (docs/executorch.md). ``fold_constants`` (``None``:
    on with ``in_place=True``, off without) folds each method's constants with
    ExecuTorch's ``constant_prop_pass`` before planning it (``_executorch_fold``), so a
    weight transposed at run time no longer holds the peak. memplan's own
    checker always checks every plan (it costs little). ``verify=True`` also runs
    ExecuTorch's ``Verifier.verify_storage_reuse``, which makes ``to_executorch`` 2-4x
    slower (BENCHMARKS.md §7). Other keyword arguments go to ``MemoryPlanningPass`` (``alignment``,
    ``alloc_graph_input``, ``alloc_graph_output``, ``alloc_mutable_buffers``,
    ``share_mutable_buffers``, ``allow_lifetime_and_storage_overlap``). Every argument is
    checked here: a bad one raises ``memplan.InputError``.

    After ``to_executorch``, the pass's ``reports`` holds one ``GraphReport`` per graph
    planned (every method, and every control-flow submodule of one, with its arenas and
    the bytes saved against ExecuTorch's default planner); ``algorithm`` is the
    ``Algorithm``.
    """
    if not isinstance(verify, bool):
        raise _memplan.InputError(f"verify must be True or False, got {verify!r}")
    _check_pass_options(
        pass_options,
        "memory_planning_pass",
        "time_limit, planner, threads, seed, verify, fast_capacity, work_limit, in_place, "
        "fold_constants",
    )
    algo = _et.Algorithm(
        time_limit=time_limit,
        planner=planner,
        threads=threads,
        seed=seed,
        fast_capacity=fast_capacity,
        work_limit=work_limit,
        in_place=in_place,
    )
    cls = _VerifiedMemoryPlanningPass if verify else _MemplanPass
    return cls(algo, fold_constants=_fold_option(fold_constants, in_place), **pass_options)


def _fold_option(fold_constants: Any, in_place: bool) -> bool:
    """``fold_constants`` checked: ``None`` is ``in_place`` (on with it, off without)."""
    if fold_constants is None:
        return bool(in_place)
    if not isinstance(fold_constants, bool):
        raise _memplan.InputError(
            f"fold_constants must be True, False or None (as in_place), got {fold_constants!r}"
        )
    return fold_constants
