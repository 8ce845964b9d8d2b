"""The inputs of ``memplan.executorch``'s algorithm: ExecuTorch's tensor specs read
and checked (lifetimes, arenas, alias chains), the arguments of ``Algorithm`` checked,
and the storage roots (``_Buffer``) built from them.

The lowest layer of the ExecuTorch door beside ``_executorch_inplace``: it imports no
other module of it.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Tuple

try:
    import torch
    from executorch.exir.passes.memory_planning_pass import MemoryPlanningPass
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "memplan.executorch needs ExecuTorch: pip install 'memplan[executorch]' "
        f"(executorch==1.5.1, torch==2.14.1): {e}"
    ) from e

from . import _memplan


@dataclass
class _Buffer:
    """One storage root: a non-alias spec and the aliases that live inside it."""

    spec: Any
    start: int
    end: int  # half-open
    size: int
    alignment: int
    aliases: List[Tuple[Any, int]]  # (alias spec, offset inside the root)


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
                if caller.share_mutable_buffers and not getattr(caller, "_memplans_pass", False):
                    raise _memplan.InputError(
                        f"share_mutable_buffers=True with memplan's {option}= needs memplan's "
                        "pass: use memplan.executorch.memory_planning_pass(..., "
                        "share_mutable_buffers=True) (or banked_memory_planning_pass), not "
                        "ExecuTorch's MemoryPlanningPass around memplan's Algorithm"
                    )
                return
            f = f.f_back
    finally:
        del frame


def _describe(spec: Any) -> str:
    shape = tuple(getattr(spec, "shape", ()) or ())
    return (
        f"TensorSpec(shape={shape}, dtype={getattr(spec, 'dtype', '?')}, "
        f"lifetime={getattr(spec, 'lifetime', '?')}, mem_id={getattr(spec, 'mem_id', '?')})"
    )


def _is_graph_module(value: Any) -> bool:
    """A ``torch.fx.GraphModule``: what ExecuTorch hands to a pass it calls."""
    return isinstance(value, torch.fx.GraphModule)


def _check_arguments(
    time_limit: Any, planner: Any, threads: Any, seed: Any, fast_capacity: Any, work_limit: Any = None,
    in_place: Any = False,
) -> None:
    """Raises ``memplan.InputError`` naming the first bad argument of ``Algorithm``."""
    if _is_graph_module(time_limit):
        raise _memplan.InputError(
            "memplan.executorch.memory_planning_pass was given uncalled: write "
            "memory_planning_pass=memplan.executorch.memory_planning_pass() (its result is "
            "the pass ExecuTorch runs)"
        )

    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if time_limit is not None and (
        isinstance(time_limit, bool)
        or not isinstance(time_limit, (int, float))
        or math.isnan(time_limit)
        or time_limit < 0
    ):
        raise _memplan.InputError(
            f"time_limit must be seconds >= 0 (float('inf'): no clock; None: the default work limit), "
            f"got {time_limit!r}"
        )
    if work_limit is not None and not (
        (isinstance(work_limit, int) and not isinstance(work_limit, bool) and work_limit >= 0)
        or work_limit == math.inf
    ):
        raise _memplan.InputError(
            f"work_limit must be an int >= 0 (work units per arena) or math.inf, got {work_limit!r}"
        )
    if not isinstance(planner, str) or planner not in _memplan.planners():
        raise _memplan.InputError(
            f"unknown planner {planner!r}: expected one of {_memplan.planners()}"
        )
    if not is_int(threads) or threads < 0:
        raise _memplan.InputError(f"threads must be an int >= 0 (0: every core), got {threads!r}")
    if seed is not None and (not is_int(seed) or not 0 <= seed < 2**64):
        raise _memplan.InputError(f"seed must be None or an int in [0, 2**64), got {seed!r}")
    if fast_capacity is not None and (not is_int(fast_capacity) or fast_capacity < 0):
        raise _memplan.InputError(f"fast_capacity must be None or an int >= 0 (bytes), got {fast_capacity!r}")
    if not isinstance(in_place, bool):
        raise _memplan.InputError(f"in_place must be True or False, got {in_place!r}")


def _check_call(alignment: Any, specs: Any, graph_module: Any, extra_padding: Any) -> None:
    """Raises ``memplan.InputError`` for a bad call of an algorithm. (``specs`` and
    ``graph_module`` have defaults in ``__call__`` only so that ExecuTorch calling an
    Algorithm as a pass, with a graph module alone, reaches the first message.)"""
    if _is_graph_module(alignment):
        raise _memplan.InputError(
            "memplan.executorch.Algorithm() is a memory-planning algorithm, not a pass: "
            "give memory_planning_pass=memplan.executorch.memory_planning_pass(...), or "
            "put the Algorithm in MemoryPlanningAlgorithmSuite(algo_list=[...]) inside a "
            "MemoryPlanningPass"
        )
    if isinstance(alignment, bool) or not isinstance(alignment, int) or alignment < 1:
        raise _memplan.InputError(f"alignment must be an int >= 1, got {alignment!r}")
    if isinstance(extra_padding, bool) or not isinstance(extra_padding, int) or extra_padding < 0:
        raise _memplan.InputError(f"extra_padding must be an int >= 0, got {extra_padding!r}")
    if specs is None or graph_module is None:
        raise _memplan.InputError(
            "Algorithm is called as algo(alignment, specs, graph_module, graph_signature, "
            "extra_padding)"
        )
    _refuse_bare_algorithm()


def _refuse_bare_algorithm() -> None:
    """Raises ``memplan.InputError`` when ExecuTorch's ``apply_algo`` calls the algorithm
    itself, as ``MemoryPlanningPass(memory_planning_algo=Algorithm(...))`` makes it do:
    it expects a suite that writes the specs and returns the sizes, and would fail with
    "'MemoryAlgoResult' object is not subscriptable" (issue 50)."""
    frame = inspect.currentframe()
    try:
        # _check_call's caller is the algorithm's __call__; its caller is ExecuTorch.
        f = frame
        for _ in range(3):
            f = f.f_back if f is not None else None
        if f is not None and f.f_code.co_name == "apply_algo":
            raise _memplan.InputError(
                "MemoryPlanningPass(memory_planning_algo=...) takes a suite, not memplan's "
                "Algorithm: give ExecutorchBackendConfig(memory_planning_pass="
                "memplan.executorch.memory_planning_pass(...)) (which also links in_place's "
                "shares for ExecuTorch's Verifier), or MemoryPlanningPass(memory_planning_algo="
                "MemoryPlanningAlgorithmSuite(algo_list=[memplan.executorch.Algorithm(...)]))"
            )
    finally:
        del frame


def _input_error(spec: Any, what: str) -> _memplan.InputError:
    return _memplan.InputError(f"{_describe(spec)}: {what}")


def _lifetime(spec: Any) -> Tuple[int, int]:
    """The spec's inclusive ``[first, last]`` as a half-open ``(start, end)``."""
    lifetime = getattr(spec, "lifetime", None)
    if not isinstance(lifetime, (list, tuple)) or len(lifetime) != 2:
        raise _input_error(spec, f"lifetime must be [first, last], got {lifetime!r}")
    first, last = lifetime
    for v in (first, last):
        if isinstance(v, bool) or not isinstance(v, int):
            raise _input_error(spec, f"lifetime must hold two ints, got {lifetime!r}")
    if first < 0 or last < first:
        raise _input_error(
            spec, f"lifetime [{first}, {last}] must have 0 <= first <= last (inclusive)"
        )
    return first, last + 1


def _mem_id(spec: Any, default: Optional[int] = 1) -> Any:
    """The spec's arena; ``default`` when it has none (``None``: not pinned)."""
    mem_id = getattr(spec, "mem_id", None)
    if mem_id is None:
        return default
    if isinstance(mem_id, bool) or not isinstance(mem_id, int) or mem_id < 1:
        raise _input_error(
            spec,
            f"unknown mem_id layout: mem_id must be None or an int >= 1 "
            f"(0 is reserved for constants), got {mem_id!r}",
        )
    return mem_id


def _root(spec: Any, planned: set) -> Tuple[Any, int]:
    """The storage root of an alias chain and the alias's offset inside it."""
    offset = 0
    seen = {id(spec)}
    node = spec
    while getattr(node, "storage_base", None) is not None:
        base = node.storage_base
        sbo = getattr(node, "storage_base_offset", 0)
        if isinstance(sbo, bool) or not isinstance(sbo, int) or sbo < 0:
            raise _input_error(node, f"storage_base_offset must be an int >= 0, got {sbo!r}")
        if sbo + node.allocated_memory > base.allocated_memory:
            raise _input_error(
                node,
                f"alias of {node.allocated_memory} bytes at storage_base_offset {sbo} "
                f"does not fit in its base of {base.allocated_memory} bytes",
            )
        if id(base) in seen:
            raise _input_error(spec, "alias chain does not resolve: storage_base is circular")
        seen.add(id(base))
        offset += sbo
        node = base
    if id(node) not in planned:
        raise _input_error(
            spec,
            "alias chain does not resolve: its storage_base root "
            f"{_describe(node)} is not among the specs being planned",
        )
    return node, offset


def _components(intervals: List[Tuple[int, int, int]]) -> Dict[int, int]:
    """Groups ``(offset, end, key)`` address intervals into connected runs of
    overlapping bytes; returns ``{key: run number}`` (runs in address order)."""
    run_of: Dict[int, int] = {}
    run = -1
    reach = -1
    for offset, end, key in sorted(intervals):
        if offset >= reach:
            run += 1
        reach = max(reach, end)
        run_of[key] = run
    return run_of


def _ordered(specs: Iterable[Any]) -> List[Any]:
    """The specs in a deterministic order: as given when a sequence, else sorted by
    lifetime, size and shape (ExecuTorch passes a list; a set is ordered by identity)."""
    if isinstance(specs, (list, tuple)):
        return list(specs)
    return sorted(
        specs,
        key=lambda s: (
            tuple(getattr(s, "lifetime", ()) or ()),
            getattr(s, "allocated_memory", 0),
            str(tuple(getattr(s, "shape", ()) or ())),
            str(getattr(s, "dtype", "")),
        ),
    )


def _method_name() -> Optional[str]:
    """The name of the method ExecuTorch's ``to_executorch`` is planning (its loop's
    ``name``), or ``None`` when the pass runs some other way."""
    frame = inspect.currentframe()
    try:
        f = frame.f_back if frame is not None else None
        while f is not None:
            if f.f_code.co_name == "to_executorch" and isinstance(f.f_locals.get("name"), str):
                return f.f_locals["name"]
            f = f.f_back
        return None
    finally:
        del frame
