"""The planning algorithm behind ``memplan.executorch`` (its model and options are in
that module's docs): ``Algorithm``, the reports, and the helpers the pass
(``_executorch_pass``) and the banked pass (``_executorch_banks``) share.

Layers, lowest first: ``_executorch_fold`` (constants folded by the pass, and the
run-time copies of constants), ``_executorch_inplace`` (the shares a graph allows) and
``_executorch_specs`` (the specs read and checked), this module,
``_executorch_pass`` (the ``MemoryPlanningPass``), ``_executorch_banks`` (the banked
pass), and ``executorch``, the façade that re-exports them. No module imports one
above it.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

# _executorch_specs first: without ExecuTorch, its import says what to install.
from ._executorch_specs import (
    _Buffer,
    _refuse_sharing_without_memplans_pass,
    _describe,
    _check_arguments,
    _check_call,
    _input_error,
    _lifetime,
    _mem_id,
    _root,
    _components,
    _ordered,
    _method_name,
)

from executorch.exir.memory_planning import MemoryAlgoResult, SpecAllocResult, greedy

from . import _memplan
from . import _executorch_fold as _fold
from . import _executorch_inplace as _inplace
from ._executorch_inplace import Share


@dataclass(frozen=True)
class ArenaReport:
    """What memplan did for one arena (one ``mem_id``)."""

    mem_id: int
    #: Specs in the arena, aliases and empty tensors included.
    specs: int
    #: Buffers given to the planner: non-empty specs that are not aliases.
    buffers: int
    #: Bytes reserved at the bottom of the arena (submodules); the plan starts above
    #: them, rounded up to a multiple of the buffers' alignments.
    reserved: int
    #: The most bytes live at one time: no plan of the arena is lower.
    max_load: int
    #: The plan's peak address above the reserved space.
    height: int
    #: The best proven lower bound on the height.
    lower_bound: int
    #: True when the height equals the lower bound.
    optimal: bool
    planner: str
    elapsed: float
    #: ``reserved`` (rounded up) ``+ height + extra_padding``: the arena's ``bufsizes`` entry.
    size: int
    #: With ``fast_capacity``: the spill's cost (bytes of the spilled tensors) and its
    #: proven lower bound, on both arenas' reports.
    spill_cost: Optional[int] = None
    spill_lower_bound: Optional[int] = None
    #: True for the arena that holds the spilled tensors.
    slow: bool = False
    #: True for the arena of the mutable buffers shared by every method
    #: (``share_mutable_buffers=True``): one offset per buffer, the same in every method.
    shared: bool = False
    #: The bank's name (``banked_memory_planning_pass``), else ``None``.
    bank: Optional[str] = None
    #: Bytes times accesses of the arena's buffers (``banked_memory_planning_pass``:
    #: one write plus one read per user in the graph), else ``None``.
    traffic: Optional[int] = None
    #: With ``in_place=True``: the shares memplan took (tensors that take another's
    #: storage) and the bytes they save, both counted on the arena where the bytes
    #: fall: ``saved`` is the arena's size without ``in_place`` less its size with it
    #: (0 when negative). One arena: its max load without the shares (no plan without
    #: them is lower) less its height. ``fast_capacity`` and the banked pass: each
    #: level's or bank's height in the library's plan without the shares (planned
    #: beside) less its height. With ``share_mutable_buffers``, a tensor placed inside
    #: a shared buffer counts on the arena that holds it without ``in_place`` (the
    #: method's arenas are then planned once more without the shares, for this
    #: report); the shared arena, whose size does not change, counts 0 and 0.
    shares: int = 0
    saved: int = 0
    #: The tensors live when the most bytes are (a tensor inside another's storage
    #: counted once), largest first: what holds the arena's peak.
    peak: Tuple["PeakTensor", ...] = ()
    #: The node index of that peak (``None`` for an empty arena).
    peak_time: Optional[int] = None


@dataclass(frozen=True)
class PeakTensor:
    """One tensor live at an arena's peak: the node that writes it (its name in the
    graph), that node's operator (``"aten::permute_copy"``; ``"placeholder"`` for a
    graph input, ``"output"`` for an output-only tensor), its bytes in the arena and its
    inclusive lifetime ``[first, last]``. A ``permute_copy`` of a constant here is a
    weight transposed at run time: constant propagation (or a pre-transposed weight)
    removes it."""

    node: str
    op: str
    bytes: int
    lifetime: Tuple[int, int]
    #: True when the graph computes it from constants alone at run time (a weight
    #: transposed, ...): folding constants (``fold_constants=True``) stores it in the
    #: program instead (``_executorch_fold``).
    constant: bool = False


@dataclass(frozen=True)
class GraphReport:
    """What memplan did for one graph: a method of the program, or a control-flow
    submodule of one (``torch.cond``'s branches, a loop's body), against ExecuTorch's
    default planner (its ``greedy``) run on the same tensors."""

    #: The method's name (``"forward"``), as ``to_executorch`` plans it; ``"method #k"``
    #: (the k-th run of the pass) or ``""`` (an ``Algorithm`` called directly) when
    #: ExecuTorch did not say.
    method: str
    #: The submodule's qualified name in the method's graph (``"true_graph_0"``), or
    #: ``""`` for the method's own graph.
    submodule: str
    #: One ``ArenaReport`` per arena.
    arenas: Tuple[ArenaReport, ...]
    #: The ``bufsizes`` memplan returned (index 0, the constants, is 0).
    sizes: Tuple[int, ...]
    #: The ``bufsizes`` of ExecuTorch's default greedy on the same tensors.
    default_sizes: Tuple[int, ...]
    #: With ``fold_constants`` (on by default with ``in_place=True``), on a method's own
    #: graph: the bytes folding added to the program's constants (less the constants it
    #: replaced; 0 when nothing was folded). ``None`` when folding is off.
    folded_bytes: Optional[int] = None

    @property
    def constant_copies(self) -> Tuple[PeakTensor, ...]:
        """The tensors at the arenas' peaks that the graph computes from constants alone
        at run time (``PeakTensor.constant``), largest first."""
        found = [t for a in self.arenas for t in a.peak if t.constant]
        return tuple(sorted(found, key=lambda t: -t.bytes))

    @property
    def hint(self) -> str:
        """With folding off, a sentence when run-time copies of constants hold a peak
        (what folding would remove); else ``""``."""
        copies = self.constant_copies
        if self.folded_bytes is not None or not copies:
            return ""
        ops = sorted({t.op for t in copies})
        return (
            f"{len(copies)} run-time cop{'y' if len(copies) == 1 else 'ies'} of constants "
            f"({', '.join(ops)}; {sum(t.bytes for t in copies):,} B, the largest "
            f"{copies[0].node}) at the peak: fold_constants=True (the default with "
            "in_place=True) stores them in the program instead"
        )

    @property
    def total(self) -> int:
        """Bytes of all arenas, memplan's plan."""
        return sum(self.sizes)

    @property
    def default_total(self) -> int:
        """Bytes of all arenas, ExecuTorch's default plan."""
        return sum(self.default_sizes)

    @property
    def saving(self) -> int:
        """``default_total - total``: the bytes memplan saves (negative: it costs more,
        which happens only when ``fast_capacity`` moves tensors to the slow arena)."""
        return self.default_total - self.total

    @property
    def shares(self) -> int:
        """Tensors that share another's storage (``in_place=True``), over all arenas."""
        return sum(a.shares for a in self.arenas)

    @property
    def saved(self) -> int:
        """Bytes the shares save (``in_place=True``) against the same planner without
        them, over all arenas."""
        return sum(a.saved for a in self.arenas)


class Algorithm:
    """An ExecuTorch memory-planning algorithm backed by memplan.

    Call it as ExecuTorch does: ``algo(alignment, specs, graph_module, graph_signature,
    extra_padding) -> MemoryAlgoResult``. It writes nothing into the specs (the
    ``MemoryPlanningAlgorithmSuite`` applies the winning result).

    ``work_limit`` (work units per arena; ``None``: memplan's default), ``time_limit``
    (seconds per call, a wall-clock limit instead; see the module's docs), ``planner``,
    ``threads`` and ``seed`` go to ``memplan.plan``; the time limit is shared by all
    arenas of one call. After each call, ``reports`` lists an ``ArenaReport`` per
    arena of that call, and ``graphs`` has gained a ``GraphReport`` for it (``graphs``
    keeps every call: every method and submodule; ``memory_planning_pass``'s
    ``reports`` is the same list). Bad arguments raise ``memplan.InputError`` here, not
    when ExecuTorch calls.

    ``fast_capacity`` (bytes): arena 1, its reserved space and ``extra_padding`` included,
    must fit in it; the tensors that do not fit are moved to a new, slow arena, chosen by
    ``memplan.plan`` with two memories (the fast one of that capacity, an unbounded slow
    one) at the least spilled bytes (see the module's docs). Any
    capacity that holds the reserved space and the padding works, 0 included (everything
    then spills); below that, ``memplan.InfeasibleError``. ``memplan.NoPlanFoundError``
    when no plan was found in time.

    ``in_place=True``: tensors may share storage along the shares
    ``memplan._executorch_inplace`` finds (see the module's docs); ``taken`` lists the
    ones each plan took (``_executorch_inplace.Share``). memplan's pass (``memory_planning_pass(in_place=True)``) links
    them as ExecuTorch's ``storage_base`` after ExecuTorch applies the plan; inside
    ExecuTorch's own pass the plan is the same and runs, but ExecuTorch's ``Verifier``
    would refuse the overlaps it cannot see.
    """

    def __init__(
        self,
        time_limit: Optional[float] = None,
        planner: str = "auto",
        threads: int = 0,
        seed: Optional[int] = None,
        fast_capacity: Optional[int] = None,
        work_limit: Optional[Union[int, float]] = None,
        in_place: bool = False,
    ) -> None:
        _check_arguments(time_limit, planner, threads, seed, fast_capacity, work_limit, in_place)
        self.in_place = in_place
        self.time_limit = time_limit
        self.work_limit = work_limit
        self.planner = planner
        self.threads = threads
        self.seed = seed
        self.fast_capacity = fast_capacity
        self.reports: List[ArenaReport] = []
        self.graphs: List[GraphReport] = []
        # Set by the pass before each method: the method's name and the qualified name
        # of each submodule graph, by id.
        self._method = ""
        self._submodules: Dict[int, str] = {}
        # With in_place: the shares taken since the pass last reset it; memplan's pass
        # links each as the buffer's `storage_base` once ExecuTorch has applied the plan.
        self.taken: List[Share] = []
        # Set by memplan's pass with share_mutable_buffers: shares into a mutable buffer
        # are then placed with the buffers (after every method), not planned here.
        self._defer_mutable = False
        self.deferred: List[Share] = []
        # ExecuTorch names algorithms by `__name__` (the suite's result table).
        self.__name__ = "memplan"

    def __repr__(self) -> str:
        return (
            f"memplan.executorch.Algorithm(time_limit={self.time_limit}, "
            f"planner={self.planner!r}, threads={self.threads}, seed={self.seed}, "
            f"fast_capacity={self.fast_capacity}, work_limit={self.work_limit}, "
            f"in_place={self.in_place})"
        )

    def _solve(self, problem: _memplan.Problem, time_limit: Optional[float], **request: Any) -> Any:
        """The one library call of an arena group: ``memplan.plan`` with the arena's
        problem (its shares declared, ``in_place``) and, with ``fast_capacity``, the two
        memories; the library's driver makes every fallback and comparison (the tests
        replace this to corrupt a plan, or to count the calls)."""
        if "memories" not in request:
            request["planner"] = self.planner
        return _memplan.plan(
            problem,
            time_limit=time_limit,
            work_limit=self.work_limit,
            seed=self.seed,
            threads=self.threads,
            **request,
        )

    def __call__(
        self,
        alignment: int,
        specs: Optional[Iterable[Any]] = None,
        graph_module: Any = None,
        graph_signature: Any = None,
        extra_padding: int = 0,
    ) -> MemoryAlgoResult:
        _check_call(alignment, specs, graph_module, extra_padding)
        if self.fast_capacity is not None:
            _refuse_sharing_without_memplans_pass("fast_capacity")
        started = time.monotonic()
        ordered = _ordered(specs)
        arenas = self._arenas(ordered, alignment)
        shares = self._shares(arenas, graph_module, graph_signature)
        self._names = _inplace.producers(graph_module)
        self._constant = _fold.constant_copies(graph_module)
        reserved = list(getattr(graph_module, "input_mem_buffer_sizes", None) or [])
        result = MemoryAlgoResult({}, [])
        self.reports = []
        next_obj = 0
        sizes: Dict[int, int] = {}
        if self.fast_capacity is not None:
            # One above the arenas the specs use, so the same in a control-flow
            # submodule and its parent: the submodules' slow tensors are then reserved
            # at the bottom of the parent's slow arena (as their arena-1 tensors are in
            # arena 1), not left in an arena of their own.
            # With share_mutable_buffers, mem_id 2 is the shared buffers' (the C++
            # runner shares only mem_id 1 and 2 between methods): the slow arena is 3.
            slow_id = max([1] + list(arenas)) + 1
            if slow_id == getattr(self, "_shared_id", None):
                slow_id += 1
            arenas.setdefault(1, ([], []))
            fast, slow = self._spill_arena(
                arenas, reserved, extra_padding, started, slow_id, shares.get(1, [])
            )
        for mem_id in sorted(arenas):
            base = reserved[mem_id] if mem_id < len(reserved) else 0
            roots, empty = arenas[mem_id]
            if self.fast_capacity is not None and mem_id in (1, slow_id):
                offsets, report = fast if mem_id == 1 else slow
            else:
                offsets, report = self._plan_arena(
                    mem_id, roots, base, extra_padding, started, shares.get(mem_id, [])
                )
            report = ArenaReport(specs=len(empty) + sum(1 + len(r.aliases) for r in roots), **report)
            self.reports.append(report)
            sizes[mem_id] = report.size
            next_obj = self._write(result, mem_id, roots, offsets, empty, base, next_obj)
        result.bufsizes = _bufsizes(sizes, reserved)
        default = greedy(alignment, ordered, graph_module, graph_signature, extra_padding)
        self.graphs.append(GraphReport(
            method=self._method or _method_name() or "",
            submodule=self._submodules.get(id(graph_module), ""),
            arenas=tuple(self.reports),
            sizes=tuple(result.bufsizes),
            default_sizes=tuple(default.bufsizes),
        ))
        return result

    def _arenas(
        self, specs: Sequence[Any], alignment: int, default: Optional[int] = 1
    ) -> Dict[Any, Tuple[List[_Buffer], List[Any]]]:
        """Splits the specs by arena into storage roots (with their aliases) and empty
        tensors, after validating every spec; specs with no ``mem_id`` go to arena
        ``default`` (``None``: a key of their own)."""
        planned = {id(s) for s in specs}
        roots: Dict[int, _Buffer] = {}
        arenas: Dict[int, Tuple[List[_Buffer], List[Any]]] = {}
        aliases: List[Any] = []
        for spec in specs:
            start, end = _lifetime(spec)
            mem_id = _mem_id(spec, default)
            size = spec.realign(alignment)
            if isinstance(size, bool) or not isinstance(size, int) or size < 0:
                raise _input_error(spec, f"allocated_memory must be an int >= 0, got {size!r}")
            if getattr(spec, "storage_base", None) is not None:
                aliases.append(spec)
                continue
            if size == 0:
                arenas.setdefault(mem_id, ([], []))[1].append(spec)
                continue
            buf = _Buffer(spec, start, end, size, spec.alignment, [])
            roots[id(spec)] = buf
            arenas.setdefault(mem_id, ([], []))[0].append(buf)
        for spec in aliases:
            root, offset = _root(spec, planned)
            if root.allocated_memory == 0:
                arenas.setdefault(_mem_id(root, default), ([], []))[1].append(spec)
                continue
            buf = roots[id(root)]
            if offset % spec.alignment:
                raise _input_error(
                    spec,
                    f"alias at offset {offset} inside its root breaks its alignment {spec.alignment}",
                )
            start, end = _lifetime(spec)
            buf.start, buf.end = min(buf.start, start), max(buf.end, end)
            buf.alignment = math.lcm(buf.alignment, spec.alignment)
            buf.aliases.append((spec, offset))
        return arenas

    def _shares(
        self, arenas: Dict[Any, Tuple[List[_Buffer], List[Any]]], graph_module: Any,
        graph_signature: Any,
    ) -> Dict[Any, List[Share]]:
        """With ``in_place``: each arena's shares (``_executorch_inplace.find_shares``)
        between two of its storage roots, each root that takes an input's storage in
        place starting at its op. With ``_defer_mutable`` (memplan's pass sharing the
        mutable buffers, which are not planned here), a share into a mutable buffer
        takes its spec out of the plan, into ``deferred``."""
        if not self.in_place:
            return {}
        where: Dict[int, Tuple[Any, _Buffer]] = {}
        for mem_id, (roots, _) in arenas.items():
            for r in roots:
                where[id(r.spec)] = (mem_id, r)
        out: Dict[Any, List[Share]] = {}
        deferred: Dict[int, _Buffer] = {}
        first_start = self._first_start = {id(r): r.start for _, r in where.values()}
        for share in _inplace.find_shares(graph_module, graph_signature):
            found = where.get(id(share.buffer))
            if found is None or found[1].aliases or id(found[1]) in deferred:
                continue
            mem_id, buf = found
            target = where.get(id(share.target))
            if target is None:
                if self._defer_mutable and share.rule in ("cache_update", "write_back"):
                    self.deferred.append(share)
                    deferred[id(buf)] = buf
                continue
            if target[0] != mem_id or target[1] is buf:
                continue
            tgt = target[1]
            if share.kind == "in_place":
                start = share.start if share.start is not None else buf.start
                if not buf.start <= start < buf.end:
                    continue  # the op is not in the spec's life
                # memplan's in-place rule (the library's), on the buffer's start at its op.
                if _memplan._in_place_breach(
                    ("buffer", start, buf.end), ("target", tgt.start, tgt.end)
                ) is not None:
                    continue
                if buf.size > tgt.size:
                    continue  # ExecuTorch's storage_base: inside its base's bytes
                buf.start = start
            elif share.offset + buf.size > tgt.size or share.offset % buf.alignment:
                continue  # past the target's end, or a misaligned slice (concat)
            out.setdefault(mem_id, []).append(share)
        self._removed: Dict[Any, List[_Buffer]] = {}
        self._unshared: Dict[Any, List[_Buffer]] = {}
        if deferred:
            gone = {id(b.spec) for b in deferred.values()}
            for mem_id, (roots, _) in arenas.items():
                self._removed[mem_id] = [r for r in roots if id(r) in deferred]
                if self._removed[mem_id]:
                    # The arena as in_place=False plans it (every root at its own
                    # start), for the report's saving (``_unshared_plan``).
                    self._unshared[mem_id] = [
                        dataclasses.replace(r, start=first_start[id(r)]) for r in roots
                    ]
                roots[:] = [r for r in roots if id(r) not in deferred]
            out = {
                m: [sh for sh in shs if id(sh.buffer) not in gone and id(sh.target) not in gone]
                for m, shs in out.items()
            }
        return out

    def _plan_arena(
        self, mem_id: int, roots: List[_Buffer], base: int, extra_padding: int, started: float,
        shares: Sequence[Share] = (),
    ) -> Tuple[List[int], Dict[str, Any]]:
        """Plans one arena (with its shares, ``in_place``) in one library call and checks
        the plan; offsets are absolute (above `base`)."""
        figures: Dict[str, Any] = dict(mem_id=mem_id, buffers=len(roots), reserved=base)
        if not roots:
            figures.update(max_load=0, height=0, lower_bound=0, optimal=True, planner="none", elapsed=0.0)
            figures["size"] = base + extra_padding
            return [], figures
        # The plan starts above the reserved bytes, on a multiple of every alignment.
        step = math.lcm(*(b.alignment for b in roots))
        bottom = -(-base // step) * step
        limit = self.time_limit
        if limit is not None:
            limit = max(0.0, limit - (time.monotonic() - started))
        problem, declared = _problem(roots, shares)
        plan = self._solve(problem, limit)
        taken = [declared[k] for k in plan.taken_shares] if declared else []
        offsets = [bottom + o for o in plan.offsets]
        _check(roots, offsets, base, taken)
        self.taken.extend(taken)
        when, peak = _peak_tensors(roots, taken, getattr(self, "_names", {}),
                                   getattr(self, "_constant", ()))
        shares_here, saved = len(taken), 0
        if declared:  # against the roots at their own starts, as in_place=False has them
            starts = getattr(self, "_first_start", {})
            saved = _saved([dataclasses.replace(r, start=starts.get(id(r), r.start))
                            for r in roots], plan.height)
        unshared = getattr(self, "_unshared", {}).get(mem_id)
        if unshared:
            # Some roots went inside the shared mutable buffers: the arena without
            # in_place holds them, so its size comes from planning it (the report's).
            (height,), moved = self._unshared_plan(unshared, limit)
            before = _bottom(base, unshared) + height + extra_padding
            saved = max(0, before - (bottom + plan.height + extra_padding))
            shares_here += moved[0]
        figures.update(
            max_load=plan.max_load,
            height=plan.height,
            lower_bound=plan.lower_bound,
            optimal=plan.optimal,
            planner=plan.planner,
            elapsed=plan.elapsed,
            size=bottom + plan.height + extra_padding,
            shares=shares_here,
            saved=saved,
            peak=peak,
            peak_time=when,
        )
        return offsets, figures

    def _unshared_plan(
        self, unshared: List[_Buffer], limit: Optional[float], **request: Any
    ) -> Tuple[List[int], List[int]]:
        """With ``share_mutable_buffers`` and ``in_place``, the arena (or, with
        ``memories``, its levels) as ``in_place=False`` plans it: ``unshared`` holds
        every root at its own start, the ones placed inside a shared mutable buffer
        included; the same request without the shares. Returns each level's height
        and how many of those roots it holds (a root placed inside a buffer counts as a
        share of the level whose bytes it saves)."""
        plan = self._solve(_problem(unshared)[0], limit, **request)
        inside = {id(b.spec) for bs in getattr(self, "_removed", {}).values() for b in bs}
        if "memories" not in request:
            return [plan.height], [sum(id(r.spec) in inside for r in unshared)]
        names = [m.name for m in request["memories"]]
        moved = [0] * len(names)
        for r, k in zip(unshared, plan.memory_index):
            moved[k] += id(r.spec) in inside
        return [plan.heights[n] for n in names], moved

    def _spill_arena(
        self,
        arenas: Dict[int, Tuple[List[_Buffer], List[Any]]],
        reserved: List[int],
        extra_padding: int,
        started: float,
        slow_id: int,
        shares: Sequence[Share] = (),
    ) -> Tuple[Tuple[List[int], Dict[str, Any]], Tuple[List[int], Dict[str, Any]]]:
        """Splits arena 1 under ``fast_capacity`` in one library call (``memplan.plan``
        with two memories: the fast one of the capacity left, an unbounded slow one;
        every buffer accessed once, so the fewest bytes spill; the shares declared,
        ``in_place``): the kept roots stay in arena 1, the spilled ones move to a new
        arena ``slow_id`` (added to ``arenas``). Both levels go through memplan's
        checker. Returns each arena's offsets (absolute) and report figures."""
        roots, empty = arenas[1]
        base = reserved[1] if len(reserved) > 1 else 0
        step = math.lcm(1, *(b.alignment for b in roots))
        bottom = -(-base // step) * step
        capacity = self.fast_capacity - bottom - extra_padding
        if capacity < 0:  # 0 is fine: every tensor spills
            rounded = f" (rounded up to {bottom}, the tensors' alignment)" if bottom != base else ""
            raise _memplan.InfeasibleError(
                f"fast_capacity {self.fast_capacity} cannot hold arena 1's reserved "
                f"{base} bytes{rounded} and extra_padding {extra_padding}"
            )
        slow_base = reserved[slow_id] if slow_id < len(reserved) else 0
        if not roots:
            arenas[slow_id] = ([], [])
            fast = self._plan_arena(1, roots, base, extra_padding, started)
            return fast, self._plan_arena(slow_id, [], slow_base, extra_padding, started)
        limit = self.time_limit
        if limit is not None:
            limit = max(0.0, limit - (time.monotonic() - started))
        problem, declared = _problem(roots, shares)
        request = dict(
            memories=[_memplan.Memory("fast", capacity=capacity), _memplan.Memory("slow")],
        )
        plan = self._solve(problem, limit, accesses=[1] * len(roots), **request)
        spilled = [m != 0 for m in plan.memory_index]
        offsets_of = list(plan.offsets)
        taken = [declared[k] for k in plan.taken_shares] if declared else []
        kept = [k for k, s in enumerate(spilled) if not s]
        gone = [k for k, s in enumerate(spilled) if s]
        fast_roots = [roots[k] for k in kept]
        slow_roots = [roots[k] for k in gone]
        slow_step = math.lcm(1, *(b.alignment for b in slow_roots))
        slow_bottom = -(-slow_base // slow_step) * slow_step
        fast_offsets = [bottom + offsets_of[k] for k in kept]
        slow_offsets = [slow_bottom + offsets_of[k] for k in gone]
        fast_ids = {id(r.spec) for r in fast_roots}
        level_shares = (
            [sh for sh in taken if id(sh.buffer) in fast_ids],
            [sh for sh in taken if id(sh.buffer) not in fast_ids],
        )
        if fast_roots:
            _check(fast_roots, fast_offsets, base, level_shares[0])
        if slow_roots:
            _check(slow_roots, slow_offsets, slow_base, level_shares[1])
        self.taken.extend(taken)
        arenas[1] = (fast_roots, empty)
        arenas[slow_id] = (slow_roots, [])
        # What each level needs without the shares: the library's plan without them,
        # planned beside (or, with roots inside the shared mutable buffers, the arena
        # as in_place=False plans it), so each level's saving falls where its bytes do.
        unshared = getattr(self, "_unshared", {}).get(1)
        moved = [0, 0]
        if unshared:
            before, moved = self._unshared_plan(
                unshared, limit, accesses=[1] * len(unshared), **request
            )
        elif plan.unshared_heights is not None:
            before = [plan.unshared_heights[n] for n in ("fast", "slow")]
        else:
            before = None
        figures = []
        levels = ((1, fast_roots, fast_offsets, bottom, base),
                  (slow_id, slow_roots, slow_offsets, slow_bottom, slow_base))
        for k, ((mem_id, rs, offs, lo, res), level) in enumerate(zip(levels, level_shares)):
            height = max((o + r.size for r, o in zip(rs, offs)), default=lo) - lo
            load = _load(rs, level)
            when, peak = _peak_tensors(rs, level, getattr(self, "_names", {}),
                                       getattr(self, "_constant", ()))
            figures.append((offs, dict(
                mem_id=mem_id, buffers=len(rs), reserved=res,
                max_load=load, height=height, lower_bound=load, optimal=height == load,
                planner="spill" if not taken else "spill, in place", elapsed=plan.elapsed,
                size=lo + height + extra_padding,
                spill_cost=plan.cost, spill_lower_bound=plan.lower_bound, slow=mem_id != 1,
                shares=len(level) + moved[k],
                saved=max(0, before[k] - height) if before is not None else 0,
                peak=peak, peak_time=when,
            )))
        if figures[0][1]["size"] > self.fast_capacity:
            raise _memplan.CheckError(
                f"arena 1 needs {figures[0][1]['size']} bytes, over fast_capacity {self.fast_capacity}"
            )
        return figures[0], figures[1]

    @staticmethod
    def _write(
        result: MemoryAlgoResult,
        mem_id: int,
        roots: List[_Buffer],
        offsets: List[int],
        empty: List[Any],
        base: int,
        next_obj: int,
    ) -> int:
        """Records every spec's (mem_id, mem_obj_id, mem_offset); returns the next free
        object id. Object ids: one per connected run of overlapping bytes."""
        placed: List[Tuple[Any, int]] = []
        for b, off in zip(roots, offsets):
            placed.append((b.spec, off))
            placed.extend((alias, off + inner) for alias, inner in b.aliases)
        run_of = _components(
            [(off, off + spec.allocated_memory, k) for k, (spec, off) in enumerate(placed)]
        )
        runs = max(run_of.values(), default=-1) + 1
        for k, (spec, off) in enumerate(placed):
            result.spec_dict[spec] = SpecAllocResult(mem_id, next_obj + run_of[k], off)
        next_obj += runs
        for spec in empty:
            result.spec_dict[spec] = SpecAllocResult(mem_id, next_obj, base)
            next_obj += 1
        return next_obj


def _bufsizes(sizes: Dict[int, int], reserved: Sequence[int]) -> List[int]:
    """ExecuTorch's ``bufsizes``: slot 0 for constants, then each arena's size, the ones
    memplan planned from ``sizes``, the others as the graph carried them (``reserved``)."""
    count = max([1, len(reserved) - 1] + list(sizes))
    return [0] + [sizes.get(m, reserved[m] if m < len(reserved) else 0) for m in range(1, count + 1)]


def _problem(
    roots: Sequence[_Buffer], shares: Sequence[Share] = (), extra: Sequence[Dict[str, Any]] = (),
    required: bool = False,
) -> Tuple[_memplan.Problem, List[Share]]:
    """The library's problem of an arena's roots (ids are their positions) and ``extra``
    buffers, with the ``shares`` between two of the roots (``required``: always taken);
    returns it and those shares, in the order declared (``Plan.taken_shares`` indexes
    them). The one place a share becomes the library's."""
    index = {id(r.spec): k for k, r in enumerate(roots)}
    buffers = [
        {"id": str(k), "start": r.start, "end": r.end, "size": r.size, "alignment": r.alignment}
        for k, r in enumerate(roots)
    ] + list(extra)
    declared = [sh for sh in shares if id(sh.buffer) in index and id(sh.target) in index]
    if not declared:
        return _memplan.Problem(buffers), []
    return _memplan.Problem(buffers, shares=[
        (str(index[id(sh.buffer)]), str(index[id(sh.target)]), sh.kind, sh.offset, required)
        for sh in declared
    ]), declared


def _bottom(base: int, roots: Sequence[_Buffer]) -> int:
    """Where an arena's plan starts: its reserved bytes rounded up to a multiple of
    every root's alignment."""
    step = math.lcm(1, *(b.alignment for b in roots))
    return -(-base // step) * step


def _saved(roots: Sequence[_Buffer], height: int) -> int:
    """The bytes the shares save at least: the arena's max load without them (no plan
    without shares is lower) less the plan's height with them, 0 when negative."""
    return max(0, _problem(roots)[0].max_load() - height) if roots else 0


def _check(
    roots: List[_Buffer], offsets: List[int], base: int, shares: Sequence[Share] = ()
) -> None:
    """memplan's independent checker on the arena's final offsets, the reserved space
    standing as a fixed buffer over all time, two buffers overlapping only along one of
    ``shares`` (the shares the plan took); then every alias inside its root."""
    final = list(offsets)
    extra = []
    if base > 0:
        end = max(b.end for b in roots)
        extra.append({"id": "reserved", "start": 0, "end": end, "size": base, "fixed_offset": 0})
        final.append(0)
    _memplan.check(_problem(roots, shares, extra)[0], final)
    for b, off in zip(roots, offsets):
        for alias, inner in b.aliases:
            start, end = _lifetime(alias)
            if inner + alias.allocated_memory > b.size or start < b.start or end > b.end:
                raise _memplan.CheckError(
                    f"alias {_describe(alias)} at offset {off + inner} is not inside its "
                    f"base {_describe(b.spec)} at offset {off}"
                )


def _load(roots: List[_Buffer], taken: Sequence[Share]) -> int:
    """The most bytes live at one time, a buffer inside another's storage counted once."""
    if not roots:
        return 0
    return _problem(roots, taken, required=True)[0].max_load()


def _peak_tensors(
    roots: List[_Buffer], taken: Sequence[Share], names: Dict[int, Tuple[str, str]],
    constant: Any = frozenset(),
) -> Tuple[Optional[int], Tuple[PeakTensor, ...]]:
    """The first node index at which the most bytes are live (a buffer inside another's
    storage counted once, while both live) and the tensors live then, largest first."""
    if not roots:
        return None, ()
    root_of = {id(r.spec): r for r in roots}
    delta: Dict[int, int] = {}
    for r in roots:
        delta[r.start] = delta.get(r.start, 0) + r.size
        delta[r.end] = delta.get(r.end, 0) - r.size
    pairs = [(root_of[id(sh.buffer)], root_of[id(sh.target)], sh) for sh in taken]
    for buf, tgt, sh in pairs:
        lo = max(buf.start, tgt.start)
        hi = min(buf.end, tgt.end)
        if lo < hi:
            overlap = min(buf.size, tgt.size - sh.offset)
            delta[lo] = delta.get(lo, 0) - overlap
            delta[hi] = delta.get(hi, 0) + overlap
    load = best = 0
    when = roots[0].start
    for t in sorted(delta):
        load += delta[t]
        if load > best:
            best, when = load, t
    inside = {id(buf) for buf, tgt, _ in pairs if tgt.start <= when < tgt.end}
    live = sorted(
        (r for r in roots if r.start <= when < r.end and id(r) not in inside),
        key=lambda r: (-r.size, r.start),
    )
    out = []
    for r in live:
        node, op = names.get(id(r.spec), ("?", "?"))
        out.append(PeakTensor(node=node, op=op, bytes=r.size, lifetime=(r.start, r.end - 1),
                              constant=id(r.spec) in constant))
    return when, tuple(out)
