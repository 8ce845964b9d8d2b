from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union, overload

__version__: str

class MemplanError(Exception): ...
class InputError(MemplanError, ValueError): ...
class InfeasibleError(MemplanError): ...
class NoPlanFoundError(MemplanError):
    # From ``plan()``: the lowest plan found, over the capacity, or None.
    best: Plan | None
class CheckError(MemplanError): ...

Id = Union[str, int]
BufferSpec = Union[
    Mapping[str, Any],  # id, start, end, size[, alignment, fixed_offset, gaps]
    Tuple[Id, int, int, int],
    Tuple[Id, int, int, int, int],
]
# A column: any integer array with the buffer protocol (numpy, array.array) or a sequence.
Column = Any

class Problem:
    def __init__(
        self,
        buffers: Sequence[BufferSpec],
        capacity: Optional[int] = None,
        lifetimes: Optional[str] = None,  # "half-open" (default) or "inclusive"
        # (buffer, target[, kind[, offset[, required]]]) or a dict with those keys
        shares: Optional[Sequence[Union[Tuple[Any, ...], Dict[str, Any]]]] = None,
    ) -> None: ...
    @staticmethod
    def from_arrays(
        starts: Column,
        ends: Column,
        sizes: Column,
        alignments: Optional[Column] = None,
        ids: Optional[Column] = None,
        capacity: Optional[int] = None,
        lifetimes: Optional[str] = None,
    ) -> Problem: ...
    @staticmethod
    def from_csv(path: str, capacity: Optional[int] = None, lifetimes: Optional[str] = None) -> Problem: ...
    @staticmethod
    def from_csv_text(text: str, capacity: Optional[int] = None, lifetimes: Optional[str] = None) -> Problem: ...
    @staticmethod
    def from_json(path: str, capacity: Optional[int] = None, lifetimes: Optional[str] = None) -> Problem: ...
    @staticmethod
    def from_json_text(text: str, capacity: Optional[int] = None, lifetimes: Optional[str] = None) -> Problem: ...
    @staticmethod
    def from_file(
        path: str,
        memories: Optional[Sequence[Memory]] = None,
        spill: Optional[int] = None,  # the fast memory's capacity: memories fast:spill, slow
        lifetimes: Optional[str] = None,
    ) -> Problem: ...
    @property
    def memories(self) -> Optional[List[Memory]]: ...  # those it was read with (from_file)
    def to_json(self) -> str: ...
    def to_csv(self) -> str: ...
    def __len__(self) -> int: ...
    @property
    def ids(self) -> List[Id]: ...
    @property
    def buffers(self) -> List[Dict[str, Any]]: ...
    @property
    def capacity(self) -> Optional[int]: ...
    @property
    def shares(self) -> List[Tuple[Id, Id, str, int, bool]]: ...
    def max_load(self) -> int: ...
    def with_capacity(self, capacity: Optional[int] = None) -> Problem: ...

class Plan:
    @property
    def offsets(self) -> List[int]: ...
    @property
    def ids(self) -> List[Id]: ...
    @property
    def height(self) -> int: ...
    @property
    def max_load(self) -> int: ...
    @property
    def lower_bound(self) -> int: ...
    @property
    def optimal(self) -> bool: ...
    @property
    def planner(self) -> str: ...
    @property
    def elapsed(self) -> float: ...
    @property
    def work(self) -> int: ...
    @property
    def stopped_by(self) -> Optional[str]: ...  # "work", "clock", "cancel" or None
    @property
    def taken_shares(self) -> List[int]: ...  # indices into the problem's shares
    def to_dict(self) -> Dict[Id, int]: ...
    def __len__(self) -> int: ...

DEFAULT_WORK_LIMIT: int

class Memory:
    """One memory for ``plan(problem, memories=[...])``: a unique name, a capacity in
    bytes (None: unbounded), an alignment (every offset in it is a multiple) and a cost
    per byte of traffic (every memory has one, or none does: then the objective is
    lexicographic, as much traffic as possible in the first memory, then the second...)."""
    def __init__(
        self,
        name: str,
        capacity: Optional[int] = None,
        alignment: int = 1,
        cost: Optional[int] = None,
    ) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def capacity(self) -> Optional[int]: ...
    @property
    def alignment(self) -> int: ...
    @property
    def cost(self) -> Optional[int]: ...

class MemoryPlan:
    """A plan across memories (``plan(problem, memories=[...])``), indexed like the
    problem's buffers; per-memory figures are dicts keyed by memory name."""
    @property
    def memory(self) -> List[str]: ...  # each buffer's memory name
    @property
    def memory_index(self) -> List[int]: ...  # its position in ``memories``
    @property
    def offsets(self) -> List[int]: ...  # in each buffer's own memory
    @property
    def ids(self) -> List[Id]: ...
    @property
    def memories(self) -> List[str]: ...
    @property
    def heights(self) -> Dict[str, int]: ...
    @property
    def unshared_heights(self) -> Optional[Dict[str, int]]: ...  # without the optional shares
    @property
    def traffic(self) -> Dict[str, int]: ...  # Σ size × accesses of its buffers
    @property
    def capacities(self) -> Dict[str, Optional[int]]: ...
    @property
    def traffic_bounds(self) -> Dict[str, int]: ...  # a proven ceiling on each memory's traffic
    @property
    def memory_gaps(self) -> Dict[str, int]: ...  # ceiling − traffic; 0: proven optimal
    @property
    def cost(self) -> int: ...  # Σ traffic × cost, or (no costs) traffic outside the first memory
    @property
    def lower_bound(self) -> int: ...
    @property
    def gap(self) -> int: ...
    @property
    def optimal(self) -> bool: ...
    @property
    def elapsed(self) -> float: ...
    @property
    def work(self) -> int: ...
    @property
    def stopped_by(self) -> Optional[str]: ...
    @property
    def fallback(self) -> bool: ...  # the plan comes from the one-pass fallback
    @property
    def taken_shares(self) -> List[int]: ...  # indices into the problem's shares
    def to_dict(self) -> Dict[Id, Tuple[str, int]]: ...
    def __len__(self) -> int: ...

# Per buffer: a sequence indexed like the buffers, or a mapping by buffer id.
AllowedSpec = Union[
    Sequence[Union[str, Sequence[str], None]],
    Mapping[Id, Union[str, Sequence[str], None]],
]
AccessSpec = Union[Sequence[Optional[int]], Mapping[Id, Optional[int]]]

@overload
def plan(
    problem: Problem,
    planner: str = "auto",
    capacity: Optional[int] = None,
    time_limit: Optional[float] = None,
    work_limit: Optional[Union[int, float]] = None,
    seed: Optional[int] = None,
    threads: int = 0,
    verify: bool = True,
    memories: None = None,
    allowed: None = None,
    accesses: None = None,
) -> Plan: ...  # a MemoryPlan for a problem read with its memories (Problem.from_file)
@overload
def plan(
    problem: Problem,
    planner: str = "auto",
    capacity: None = None,
    time_limit: Optional[float] = None,
    work_limit: Optional[Union[int, float]] = None,
    seed: Optional[int] = None,
    threads: int = 0,
    verify: bool = True,
    *,
    memories: Sequence[Memory],
    allowed: Optional[AllowedSpec] = None,
    accesses: Optional[AccessSpec] = None,
) -> MemoryPlan: ...
def plan_spill(
    problem: Problem,
    capacity: int,
    costs: Optional[Sequence[int]] = None,
    memory: Optional[Sequence[Optional[str]]] = None,  # "fast", "slow", "either"/None
    time_limit: Optional[float] = None,
    work_limit: Optional[Union[int, float]] = None,
    threads: int = 0,
    seed: int = 0,
    verify: bool = True,
) -> MemoryPlan:
    """Spill, the short form of ``plan`` with two memories (``fast`` of ``capacity``
    bytes, then ``slow``): the cheapest buffers go to slow memory so the rest fit.
    Raises InfeasibleError, NoPlanFoundError, InputError."""
    ...
def check(
    problem: Problem,
    plan: Union[Plan, MemoryPlan, Sequence[int], Mapping[Id, int]],
    capacity: Optional[int] = None,
) -> int: ...  # the height; for a MemoryPlan, the cost (checked across its memories)
def planners() -> List[str]: ...
def render(
    problem: Problem,
    plan: Union[Plan, MemoryPlan, Sequence[int]],
    name: str = "plan",
    width: int = 1200,
    height: int = 800,
) -> str:
    """The plan as an SVG picture (the drawing of `memplan render`)."""
    ...
def share(problem: Problem, strategy: str = "auto") -> Dict[str, Any]:
    """Shared objects (TFLite §4): keys objects, object_sizes, total, lower_bound, naive, strategy."""
    ...
def _plan_tflite(
    model: bytes,
    name: str,
    planner: str,
    time_limit: Optional[float],
    capacity: Optional[int],
    force: bool,
    threads: int,
    reference_scratch: bool,
    scratch: Sequence[Tuple[int, int, int]],
    work_limit: Optional[Union[int, float]] = None,
    in_place: bool = False,
) -> Tuple[Plan, bytes, int]:
    """The body of ``memplan.tflite.plan_model``: the plan, the planned model's bytes, and
    the number of subgraphs."""
    ...

def _multi_subgraph_note() -> str:
    """What ``plan_model`` warns about a model of several subgraphs."""
    ...

def _in_place_breach(
    buffer: Tuple[str, int, int], target: Tuple[str, int, int]
) -> Optional[str]:
    """The library's in-place rule on ``(id, start, end)`` lifetimes (half-open): why
    ``buffer`` may not take ``target``'s storage in place, or ``None`` when it may."""
    ...
