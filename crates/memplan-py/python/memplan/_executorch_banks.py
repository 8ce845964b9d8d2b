"""memplan in place of ExecuTorch's banked memory planning (``memplan.executorch``'s
``banked_memory_planning_pass``; this module is its body).

ExecuTorch's ``TargetMemoryMap`` lists banks fastest first, each a runtime arena
(``Bank.mem_id``) with a byte budget (``Bank.size``) and an optional alignment. The model:

- **Banks.** Bank ``k`` holds the buffers placed in it under its budget: its reserved
  bytes (``input_mem_buffer_sizes[mem_id]``, control-flow submodules), rounded up to the
  buffers' alignment, plus the plan's height, plus ``extra_padding`` when it holds
  anything (a bank left empty costs its reserved bytes only, as in ExecuTorch's pass). A
  buffer's size in a bank is rounded up to the bank's alignment (a multiple of the
  graph's, else ``memplan.InputError``), and so is its offset.
- **Pins.** A spec whose ``mem_id`` an earlier pass set is pinned: to a declared bank it
  may only go there (and counts against it); to an undeclared ``mem_id`` it is laid out
  in that arena, planned on its own, with no budget. Unpinned buffers never go to an
  undeclared arena. Aliases (``storage_base``) follow their root; zero-size specs sit at
  the bottom of the first bank (or of their pinned arena).
- **Objective.** Each buffer is accessed ``1 + users`` times (one write, one read per
  node of the graph that uses it); its traffic is its size times that. The plan keeps as
  much traffic as it can in the first bank, then in the second, and so on
  (lexicographic). One library call per graph: ``memplan.plan`` with ``memories`` (one
  per bank, its budget the bank's size less its reserved bytes and ``extra_padding``),
  ``allowed`` (a pin: its bank only), ``accesses`` and, ``in_place``, the shares between
  two buffers; the library's driver does every fallback and comparison, and re-plans
  each bank at its least height (with its shares), kept when lower. A buffer's size is
  rounded up to the alignment of every bank it may use (a bank's own alignment makes
  ExecuTorch round it so), and back to its bank's rounding once placed.
- **Where ExecuTorch's pass succeeds.** When the library's levels find no plan, its
  fallback fills the banks largest buffer first, into the first bank with room (the shape
  of ExecuTorch's ``BankedGreedy``), fastest first and slowest first, and its joint
  search tries every assignment of small graphs; a test runs both passes on many small
  random graphs and maps and requires memplan's to plan every one ExecuTorch's plans.
- **Failure.** A graph is refused (``BankPlacementError``) only when no plan exists
  (proven: at some time the live buffers need more than all the banks together, or a
  bank's pins alone exceed it; ``BankInfeasibleError``) or none was found
  (``BankNoPlanFoundError``); the message names the time, the largest buffers and the
  banks.
- **Reports.** Per bank, ``shares`` counts the shares taken between two of its tensors,
  and ``saved`` the bytes they save there: the bank's height in the library's plan
  without the shares (planned beside the plan with them) less its height with them (0
  when not positive), so a share that lets more traffic into a full first bank counts
  where the bytes fall, in the banks after it.

Every bank's plan goes through memplan's independent checker (the reserved bytes as a
fixed buffer, every alias inside its root) and then each declared bank's arena is
checked against its budget, before ExecuTorch sees anything.
"""

from __future__ import annotations

import dataclasses
import math
import operator
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from executorch.exir.banked_memory_planning import (
    BankedGreedy,
    TargetMemoryMap,
)
from executorch.exir.banked_memory_planning import (
    BankPlacementError as _ExecuTorchBankPlacementError,
)
from executorch.exir.memory_planning import MemoryAlgoResult, get_node_tensor_specs
from executorch.exir.schema import DeviceType
from executorch.exir.tensor import ALIGNMENT

from . import _memplan
from . import _executorch_fold as _fold
from . import _executorch_inplace as _inplace
from . import _executorch_algorithm as _et
from . import _executorch_specs as _specs
from . import _executorch_pass as _pass


class BankPlacementError(_ExecuTorchBankPlacementError, _memplan.MemplanError):
    """The graph's buffers do not fit the ``TargetMemoryMap``: ExecuTorch's
    ``BankPlacementError`` (so code that catches it keeps working) and a
    ``memplan.MemplanError``. Raised as one of its two subclasses."""


class BankInfeasibleError(BankPlacementError, _memplan.InfeasibleError):
    """No plan exists: at the time the message names, the live buffers need more than
    the banks offer, or a bank's pins alone exceed it."""


class BankNoPlanFoundError(BankPlacementError, _memplan.NoPlanFoundError):
    """No plan was found within the time limit, though none is proven impossible."""


def _round_up(n: int, step: int) -> int:
    return -(-n // step) * step


def check_target(target: Any, alignment: Any) -> None:
    """Raises ``memplan.InputError`` for a map that is not a ``TargetMemoryMap`` or whose
    bank alignments are not multiples of the graph's ``alignment``."""
    if not isinstance(target, TargetMemoryMap):
        raise _memplan.InputError(
            "target must be ExecuTorch's TargetMemoryMap([Bank(name, size, mem_id, "
            f"alignment), ...]) (executorch.exir.banked_memory_planning), got {type(target).__name__}"
        )
    if isinstance(alignment, bool) or not isinstance(alignment, int) or alignment < 1:
        raise _memplan.InputError(f"alignment must be an int >= 1, got {alignment!r}")
    for bank in target.banks:
        if bank.alignment is not None and bank.alignment % alignment:
            raise _memplan.InputError(
                f"TargetMemoryMap: bank {bank.name!r} (mem_id={bank.mem_id}) declares "
                f"alignment {bank.alignment}, which is not a multiple of the graph's "
                f"alignment {alignment}; a bank may only tighten the alignment (give it a "
                f"multiple of {alignment}, or None to inherit it)"
            )


def access_counts(graph_module: Any) -> Dict[int, int]:
    """``id(spec) -> accesses``: one write, plus one read per user of a node that holds
    the spec (a ``getitem`` picks an output and reads nothing; a user holding the same
    spec, as an out-variant op holds its ``alloc``'s, writes it rather than reads it)."""
    counts: Dict[int, int] = {}
    for node in graph_module.graph.nodes:
        own = get_node_tensor_specs(node)
        for spec in own:
            counts.setdefault(id(spec), 1)
        if not own:
            continue
        for user in node.users:
            if user.target is operator.getitem:
                continue
            theirs = {id(s) for s in get_node_tensor_specs(user)}
            for spec in own:
                if id(spec) not in theirs:
                    counts[id(spec)] += 1
    return counts


def _accesses(root: Any, counts: Dict[int, int]) -> int:
    """A storage root's accesses: its own and its aliases'."""
    return sum(counts.get(id(s), 1) for s in [root.spec] + [a for a, _ in root.aliases])


def _peak(roots: Sequence[Any]) -> Tuple[int, int, List[Any]]:
    """``(time, load, live roots, largest first)`` at the first time the most bytes are
    live (times are node indices, the roots' half-open ``[start, end)``)."""
    events = sorted([(r.start, 1, r.size) for r in roots] + [(r.end, 0, -r.size) for r in roots])
    load = best = 0
    when = 0
    for t, _, delta in events:
        load += delta
        if load > best:
            best, when = load, t
    live = sorted((r for r in roots if r.start <= when < r.end), key=lambda r: -r.size)
    return when, best, live


def _name(root: Any) -> str:
    spec = root.spec
    shape = list(getattr(spec, "shape", ()) or ())
    return f"{root.size:,} B (shape {shape}, lifetime {list(getattr(spec, 'lifetime', []))})"


def _buffers(live: Sequence[Any], shown: int = 3) -> str:
    more = f" and {len(live) - shown} more" if len(live) > shown else ""
    return ", ".join(_name(r) for r in live[:shown]) + more


class BankedAlgorithm(_et.Algorithm):
    """memplan's planner across a ``TargetMemoryMap``, with ExecuTorch's algorithm
    signature (see the module doc). ``traffic=False`` keeps the most bytes, not the most
    traffic, in the faster banks. ``time_limit`` (seconds per graph), ``work_limit``,
    ``threads`` and ``seed`` as in ``Algorithm``. ``reports``/``graphs`` as in ``Algorithm``, with one
    ``ArenaReport`` per bank (``bank``, ``traffic``) and per undeclared arena;
    ``default_sizes`` are ExecuTorch's ``BankedGreedy``'s on the same tensors (empty when
    it raises)."""

    def __init__(
        self,
        target: TargetMemoryMap,
        time_limit: Optional[float] = None,
        threads: int = 0,
        seed: Optional[int] = None,
        traffic: bool = True,
        work_limit: Optional[Union[int, float]] = None,
        in_place: bool = False,
    ) -> None:
        check_target(target, 1)
        if not isinstance(traffic, bool):
            raise _memplan.InputError(f"traffic must be True or False, got {traffic!r}")
        super().__init__(time_limit=time_limit, threads=threads, seed=seed, work_limit=work_limit,
                         in_place=in_place)
        self.target = target
        # ExecuTorch's BankedGreedy's attribute, for code that reads it: memplan places
        # aliases inside their roots itself and never overlaps other allocations.
        self.allow_overlapping_allocations = True
        self.traffic = traffic
        self.__name__ = "memplan_banked"

    def __repr__(self) -> str:
        return (
            f"memplan.executorch.BankedAlgorithm(target=[{self.target.describe()}], "
            f"time_limit={self.time_limit}, work_limit={self.work_limit}, threads={self.threads}, "
            f"seed={self.seed}, traffic={self.traffic}, in_place={self.in_place})"
        )

    def __call__(
        self,
        alignment: int,
        specs: Optional[Any] = None,
        graph_module: Any = None,
        graph_signature: Any = None,
        extra_padding: int = 0,
    ) -> MemoryAlgoResult:
        _specs._check_call(alignment, specs, graph_module, extra_padding)
        check_target(self.target, alignment)
        _specs._refuse_sharing_without_memplans_pass("BankedAlgorithm")
        started = time.monotonic()
        ordered = _specs._ordered(specs)
        devices = {getattr(s, "device", DeviceType.CPU) for s in ordered} - {DeviceType.CPU}
        if devices:
            raise _memplan.InputError(
                "banked memory planning takes CPU specs only (one map, one address "
                f"space); this graph has specs on {', '.join(sorted(d.name for d in devices))}"
            )
        default = self._default(alignment, ordered, graph_module, graph_signature, extra_padding)
        arenas = self._arenas(ordered, alignment, default=None)
        shares = self._shares(arenas, graph_module, graph_signature)
        self._names = _inplace.producers(graph_module)
        self._constant = _fold.constant_copies(graph_module)
        reserved = list(getattr(graph_module, "input_mem_buffer_sizes", None) or [])
        counts = access_counts(graph_module)
        free, free_empty = arenas.pop(None, ([], []))
        pins = {b.mem_id: arenas.pop(b.mem_id, ([], [])) for b in self.target.banks}
        banked = [sh for key in [None] + [b.mem_id for b in self.target.banks]
                  for sh in shares.get(key, [])]
        placed = self._place(free, {m: p[0] for m, p in pins.items()}, reserved,
                             alignment, extra_padding, counts, started, banked)
        result = MemoryAlgoResult({}, [])
        self.reports = []
        sizes: Dict[int, int] = {}
        next_obj = 0
        for k, bank in enumerate(self.target.banks):
            roots, offsets, figures = placed[bank.mem_id]
            self.taken.extend(figures.pop("_taken", []))
            empty = pins[bank.mem_id][1] + (free_empty if k == 0 else [])
            for r in roots:
                r.spec.realign(bank.alignment or alignment)
            report = _et.ArenaReport(
                specs=len(empty) + sum(1 + len(r.aliases) for r in roots), **figures
            )
            self.reports.append(report)
            sizes[bank.mem_id] = report.size
            base = reserved[bank.mem_id] if bank.mem_id < len(reserved) else 0
            next_obj = self._write(result, bank.mem_id, roots, offsets, empty, base, next_obj)
            if report.size > bank.size:
                raise _memplan.CheckError(
                    f"bank {bank.name!r} (mem_id={bank.mem_id}) needs {report.size} bytes, "
                    f"over its size {bank.size}"
                )
        for mem_id in sorted(arenas):  # pinned to arenas the map does not declare
            roots, empty = arenas[mem_id]
            base = reserved[mem_id] if mem_id < len(reserved) else 0
            offsets, figures = self._plan_arena(mem_id, roots, base, extra_padding, started,
                                                shares.get(mem_id, []))
            figures["traffic"] = sum(r.size * _accesses(r, counts) for r in roots)
            report = _et.ArenaReport(
                specs=len(empty) + sum(1 + len(r.aliases) for r in roots), **figures
            )
            self.reports.append(report)
            sizes[mem_id] = report.size
            next_obj = self._write(result, mem_id, roots, offsets, empty, base, next_obj)
        result.bufsizes = _et._bufsizes(sizes, reserved)
        self.graphs.append(_et.GraphReport(
            method=self._method or _specs._method_name() or "",
            submodule=self._submodules.get(id(graph_module), ""),
            arenas=tuple(self.reports),
            sizes=tuple(result.bufsizes),
            default_sizes=default,
        ))
        return result

    def _default(self, alignment: int, specs: List[Any], graph_module: Any,
                 graph_signature: Any, extra_padding: int) -> Tuple[int, ...]:
        """ExecuTorch's ``BankedGreedy`` sizes on the same specs (for the report), or
        ``()`` when it raises. Run first: it realigns specs, which ``_arenas`` undoes."""
        try:
            greedy = BankedGreedy(self.target)(
                alignment, list(specs), graph_module, graph_signature, extra_padding
            )
        except _ExecuTorchBankPlacementError:
            return ()
        return tuple(greedy.bufsizes)

    def _place(self, free: List[Any], pins: Dict[int, List[Any]], reserved: List[int],
               alignment: int, extra_padding: int, counts: Dict[int, int],
               started: float, shares: Sequence[Any] = (),
               ) -> Dict[int, Tuple[List[Any], List[int], Dict[str, Any]]]:
        """Each bank's roots, absolute offsets and report figures (see the module doc)."""
        banks = self.target.banks
        caps = []
        for bank in banks:
            base = reserved[bank.mem_id] if bank.mem_id < len(reserved) else 0
            caps.append(bank.size - base)  # a bank left empty pays no padding
            roots = [self._in_bank(r, bank, alignment) for r in pins[bank.mem_id]]
            if roots:
                step = math.lcm(*(r.alignment for r in roots))
                cap = bank.size - _round_up(base, step) - extra_padding
                when, load, live = _peak(roots)
                if load > cap:
                    raise BankInfeasibleError(
                        f"no plan exists: at time {when}, the buffers pinned to bank "
                        f"{bank.name!r} (mem_id={bank.mem_id}) need {load:,} B, over the "
                        f"{max(cap, 0):,} B it has for them (size {bank.size:,}, reserved "
                        f"{base:,}, extra_padding {extra_padding}): {_buffers(live)}; "
                        f"target memory map: {self.target.describe()}"
                    )
        everything = free + [r for rs in pins.values() for r in rs]
        when, load, live = _peak(everything)
        if load > sum(max(c, 0) for c in caps):
            raise BankInfeasibleError(
                f"no plan exists: at time {when}, {len(live)} live buffers need {load:,} B, "
                f"over the {sum(max(c, 0) for c in caps):,} B all banks offer together "
                f"(after their reserved bytes): {_buffers(live)}; "
                f"target memory map: {self.target.describe()}"
            )
        roots = list(free) + [r for b in banks for r in pins[b.mem_id]]
        allowed = [None] * len(free) + [[b.name] for b in banks for _ in pins[b.mem_id]]
        plan, declared = self._solve_banks(roots, allowed, reserved, alignment,
                                           extra_padding, counts, started, shares)
        unshared = getattr(self, "_unshared", {})
        before = None
        if plan is not None and unshared:
            # Some roots went inside the shared mutable buffers: the banks without
            # in_place hold them, so what each needs comes from planning them so (the
            # same request without the shares), for the report.
            every = list(unshared.get(None, free))
            allow = [None] * len(every)
            for b in banks:
                pinned = unshared.get(b.mem_id, pins[b.mem_id])
                every += pinned
                allow += [[b.name]] * len(pinned)
            again, _ = self._solve_banks(every, allow, reserved, alignment, extra_padding,
                                         counts, started, ())
            inside = {id(r.spec) for rs in self._removed.values() for r in rs}
            moved = {b.name: 0 for b in banks}
            for r, k in zip(every, again.memory_index):
                moved[banks[k].name] += id(r.spec) in inside
            before = (again.heights, moved)
        return self._finish(roots, plan, declared, reserved, alignment, extra_padding, counts,
                            started, before)

    @staticmethod
    def _in_bank(root: Any, bank: Any, alignment: int) -> Any:
        """The root as the bank holds it: size and alignment rounded to the bank's."""
        align = bank.alignment or alignment
        return dataclasses.replace(
            root, size=_round_up(root.size, align), alignment=math.lcm(root.alignment, align)
        )

    def _budgets(self, items_by_bank: List[List[Any]], reserved: List[int], alignment: int,
                 extra_padding: int) -> Tuple[List[int], List[int]]:
        """Each bank's bottom (its reserved bytes rounded up to the alignment of the
        buffers it may hold) and the bytes above it for the plan."""
        bottoms, caps = [], []
        for bank, held in zip(self.target.banks, items_by_bank):
            base = reserved[bank.mem_id] if bank.mem_id < len(reserved) else 0
            step = math.lcm(bank.alignment or alignment, *(it.alignment for it in held))
            bottoms.append(_round_up(base, step))
            caps.append(max(0, bank.size - bottoms[-1] - extra_padding))
        return bottoms, caps

    def _solve_banks(self, roots: List[Any], allowed: List[Any], reserved: List[int],
                     alignment: int, extra_padding: int, counts: Dict[int, int],
                     started: float, shares: Sequence[Any]) -> Tuple[Any, List[Any]]:
        """The graph's one library call (``memplan.plan`` with ``memories``): each bank a
        memory under its budget, each pinned root allowed its bank only, each root's
        accesses (``traffic``; else 1: bytes), the shares between two roots. A root's
        size is rounded up to the alignment of every bank it may use. Returns the plan
        (``None`` without roots) and the shares declared (``taken_shares`` indexes them)."""
        banks = self.target.banks
        aligns = [b.alignment or alignment for b in banks]
        every = math.lcm(*aligns)
        items = []
        for r, allow in zip(roots, allowed):
            align = every if allow is None else aligns[self.target.mem_ids().index(
                self.target.mem_id(allow[0]))]
            items.append(dataclasses.replace(
                r, size=_round_up(r.size, align), alignment=math.lcm(r.alignment, align)))
        if not items:
            return None, []
        _, caps = self._budgets(
            [[it for it, allow in zip(items, allowed) if allow is None or allow[0] == b.name]
             for b in banks], reserved, alignment, extra_padding)
        memories = [_memplan.Memory(b.name, capacity=c, alignment=a)
                    for b, c, a in zip(banks, caps, aligns)]
        limit = self.time_limit
        if limit is not None:
            limit = max(0.0, limit - (time.monotonic() - started))
        problem, declared = _et._problem(items, shares)
        accesses = [_accesses(r, counts) if self.traffic else 1 for r in roots]
        try:
            plan = self._solve(problem, limit, memories=memories, allowed=allowed,
                               accesses=accesses)
        except _memplan.InfeasibleError as e:
            raise BankInfeasibleError(
                f"no plan exists: {e}; target memory map: {self.target.describe()}"
            ) from e
        except _memplan.NoPlanFoundError as e:
            raise BankNoPlanFoundError(
                f"no plan found: {e}; give a bank more room, declare another one, or "
                f"a larger work_limit; target memory map: {self.target.describe()}"
            ) from e
        return plan, declared

    def _finish(self, roots: List[Any], plan: Any, declared: List[Any], reserved: List[int],
                alignment: int, extra_padding: int, counts: Dict[int, int], started: float,
                before: Optional[Tuple[Dict[str, int], Dict[str, int]]] = None,
                ) -> Dict[int, Tuple[List[Any], List[int], Dict[str, Any]]]:
        """Each bank's roots (at their size in that bank), absolute offsets and report
        figures from the library's plan, each bank checked by memplan's checker.
        ``before``: each bank's height without in_place and how many of its roots went
        inside a shared mutable buffer (``share_mutable_buffers``), else the library's
        heights without the shares."""
        banks = self.target.banks
        where = list(plan.memory_index) if plan is not None else []
        kept_by_bank = [[self._in_bank(r, b, alignment) for r, w in zip(roots, where) if w == k]
                        for k, b in enumerate(banks)]
        bottoms, caps = self._budgets(kept_by_bank, reserved, alignment, extra_padding)
        taken = [declared[k] for k in plan.taken_shares] if plan is not None and declared else []
        unshared = plan.unshared_heights if plan is not None else None
        moved: Dict[str, int] = {}
        if before is not None:
            unshared, moved = before
        out: Dict[int, Tuple[List[Any], List[int], Dict[str, Any]]] = {}
        for k, bank in enumerate(banks):
            base = reserved[bank.mem_id] if bank.mem_id < len(reserved) else 0
            kept = kept_by_bank[k]
            figures: Dict[str, Any] = dict(
                mem_id=bank.mem_id, reserved=base, bank=bank.name, buffers=len(kept),
                planner="banked" if kept else "none", elapsed=time.monotonic() - started,
            )
            if not kept:
                figures.update(max_load=0, height=0, lower_bound=0, optimal=True, size=base,
                               traffic=0, shares=moved.get(bank.name, 0),
                               saved=unshared[bank.name] if unshared is not None else 0)
                out[bank.mem_id] = ([], [], figures)
                continue
            absolute = [bottoms[k] + o for o, w in zip(plan.offsets, where) if w == k]
            here = {id(r.spec) for r in kept}
            mine = [sh for sh in taken if id(sh.buffer) in here]
            _et._check(kept, absolute, base, mine)
            height = max(o + r.size for r, o in zip(kept, absolute)) - bottoms[k]
            if height > caps[k]:
                raise _memplan.CheckError(
                    f"bank {bank.name!r}: a plan of height {height} over its {caps[k]} bytes")
            load = _et._load(kept, mine)
            when, peak = _et._peak_tensors(kept, mine, getattr(self, "_names", {}),
                                           getattr(self, "_constant", ()))
            saved = 0
            if unshared is not None:
                saved = max(0, unshared[bank.name] - plan.heights[bank.name])
            figures.update(
                max_load=load, height=height, lower_bound=load, optimal=height == load,
                size=bottoms[k] + height + extra_padding,
                traffic=sum(r.size * _accesses(r, counts) for r in kept),
                shares=len(mine) + moved.get(bank.name, 0), saved=saved, peak=peak,
                peak_time=when,
            )
            figures["_taken"] = mine
            out[bank.mem_id] = (kept, absolute, figures)
        return out


def banked_memory_planning_pass(
    target: TargetMemoryMap,
    alignment: int = ALIGNMENT,
    allow_overlapping_allocations: bool = True,
    time_limit: Optional[float] = None,
    threads: int = 0,
    seed: Optional[int] = None,
    verify: bool = False,
    traffic: bool = True,
    work_limit: Optional[Union[int, float]] = None,
    in_place: bool = False,
    fold_constants: Optional[bool] = None,
    **pass_options: Any,
) -> Any:
    """A ``MemoryPlanningPass`` that plans across ``target``'s banks with memplan: a
    drop-in for ExecuTorch's ``banked_memory_planning_pass`` (same ``target``,
    ``alignment`` and pass options; see the module doc of ``memplan.executorch``).

    ``work_limit`` (per bank plan; default: memplan's, the same ``.pte`` on every run),
    ``time_limit`` (seconds per graph, a wall-clock limit instead), ``threads``, ``seed``,
    ``verify`` as in ``memory_planning_pass``; ``traffic=False`` keeps the most bytes rather than the most
    traffic in the faster banks. ``allow_overlapping_allocations`` is accepted for
    ExecuTorch's signature: memplan places aliases inside their roots itself.
    ``share_mutable_buffers=True`` works: the shared buffers get arena 2 (a map with a
    bank at mem_id 2 is then refused: ExecuTorch's C++ ``Module`` shares only mem_id 1
    and 2 between methods). ``in_place=True`` as in ``memory_planning_pass``: the shares
    go to the planner across the banks (a taken share keeps both tensors in one bank),
    and each bank is re-planned with its own; ``fold_constants`` as there (on with
    ``in_place=True``). A map whose bank alignment is not a multiple of ``alignment``
    raises ``memplan.InputError`` here; a graph that does not fit raises
    ``BankPlacementError`` (ExecuTorch's, subclassed) when ``to_executorch`` plans it.
    """
    if not isinstance(allow_overlapping_allocations, bool):
        raise _memplan.InputError(
            f"allow_overlapping_allocations must be True or False, got {allow_overlapping_allocations!r}"
        )
    if not isinstance(verify, bool):
        raise _memplan.InputError(f"verify must be True or False, got {verify!r}")
    check_target(target, alignment)
    taken = [b for b in target.banks if b.mem_id == _pass.SHARED_ID]
    if pass_options.get("share_mutable_buffers") is True and taken:
        raise _memplan.InputError(
            f"share_mutable_buffers=True puts the shared mutable buffers in mem_id "
            f"{_pass.SHARED_ID}, but bank {taken[0].name!r} is mem_id {_pass.SHARED_ID}: "
            f"{_pass._RUNNER_RULE}; give the banks other mem_ids (1, 3, 4, ...)"
        )
    _pass._check_pass_options(pass_options, "banked_memory_planning_pass",
                            "time_limit, work_limit, threads, seed, verify, traffic, "
                            "allow_overlapping_allocations, in_place, fold_constants")
    algo = BankedAlgorithm(target, time_limit=time_limit, threads=threads, seed=seed,
                           traffic=traffic, work_limit=work_limit, in_place=in_place)
    cls = _pass._VerifiedMemoryPlanningPass if verify else _pass._MemplanPass
    return cls(algo, fold_constants=_pass._fold_option(fold_constants, in_place),
               alignment=alignment, **pass_options)
