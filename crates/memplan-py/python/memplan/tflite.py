"""memplan for TensorFlow Lite for Microcontrollers (TFLM).

``plan_model`` reads a ``.tflite`` model, derives each tensor's lifetime as TFLM's
allocator does, plans the arena's head with memplan, checks the plan, and writes a copy
of the model whose ``OfflineMemoryAllocation`` metadata tells TFLM where each tensor
goes. Nothing here imports TensorFlow.

>>> import memplan.tflite
>>> plan = memplan.tflite.plan_model("model.tflite", "planned.tflite")  # doctest: +SKIP
>>> plan.height  # the head bytes to reserve in tensor_arena for these tensors  # doctest: +SKIP
"""

import operator
import os
import warnings
from typing import Optional, Sequence, Tuple, Union

from ._memplan import (
    InputError,
    Plan,
    _multi_subgraph_note,
    _plan_tflite,
)

__all__ = ["plan_model", "TFLMVersionWarning"]

_Path = Union[str, "os.PathLike[str]"]
_Model = Union[_Path, bytes, bytearray, memoryview]


class TFLMVersionWarning(UserWarning):
    """A planned model of several subgraphs (IF, WHILE, CALL_ONCE) needs TFLM from
    tflite-micro e60e8ca (2023-03-29) on: older TFLM reads such offline plans wrong.
    ``plan_model(..., version_note=False)`` or ``warnings.simplefilter("ignore",
    TFLMVersionWarning)`` silences it."""


def _scratch_requests(scratch) -> list:
    """The ``scratch`` argument as (subgraph, operator, bytes) tuples of ints, or
    ``InputError`` naming the request that is not one."""
    out = []
    for r in scratch:
        try:
            s, k, b = (operator.index(x) for x in r)
        except (TypeError, ValueError):
            raise InputError(
                f"scratch request {r!r}: expected (subgraph, operator, bytes), three integers"
            ) from None
        if s < 0 or k < 0 or not 0 < b < 2**31:
            raise InputError(
                f"scratch request {r!r}: subgraph and operator must be >= 0 and bytes "
                "between 1 and 2**31 - 1"
            )
        out.append((s, k, b))
    return out


def plan_model(
    src: _Model,
    dst: Optional[_Path],
    time_limit: Optional[float] = None,
    *,
    work_limit: Optional[Union[int, float]] = None,
    planner: str = "auto",
    capacity: Optional[int] = None,
    force: bool = False,
    threads: int = 0,
    reference_scratch: bool = True,
    scratch: Sequence[Tuple[int, int, int]] = (),
    version_note: bool = True,
    in_place: bool = False,
) -> Plan:
    """Plans the TFLM arena of the model ``src`` and writes the planned model to ``dst``
    (``None``: plan without writing).

    ``src`` is a path, or the model's bytes (what ``TFLiteConverter.convert()`` returns).
    A missing file raises ``FileNotFoundError``, a directory ``IsADirectoryError`` (as
    ``open`` does).

    Returns a ``memplan.Plan`` over the tensors TFLM plans in the arena's head: ``ids``
    are the tensors' names (``name#index`` when a name repeats or is empty), ``offsets``
    their offsets from the head's start, and ``height`` the head bytes to reserve in
    ``tensor_arena`` for them. TFLM adds its persistent allocations on top.

    Kernel scratch buffers are placed by TFLM at start-up, around the plan; the plan
    leaves room for them, and they come last in ``ids`` as ``scratch:S:K:N`` (request N
    of operator K of subgraph S; their offsets are where the room is, not written to the
    model). ``reference_scratch`` leaves room for the requests of TFLM's reference
    kernels; ``scratch`` adds ``(subgraph, operator, bytes)`` requests, e.g. those of an
    optimised kernel library (``InputError`` for a request that is not three integers,
    or names no operator, or asks for no bytes).

    ``time_limit``, ``work_limit``, ``planner`` and ``threads`` are those of
    ``memplan.plan``: by default a work limit, so the same model gives the same planned
    file, byte for byte, on every run. ``capacity`` fits the head under that many bytes. A model that
    already carries an offline plan raises ``InputError`` unless ``force=True``, which
    replaces it in place (the file keeps its size).

    ``in_place=True`` lets an operator's output take over the storage of an input that
    dies there (ADD, MUL, RELU, RELU6, LOGISTIC, TANH, HARD_SWISH, QUANTIZE, RESHAPE), as
    TFLM's reference kernels allow; the plan shares only when that lowers the head, so it
    is never larger. Off by default: other kernel libraries (CMSIS-NN, ESP-NN, Xtensa)
    were not checked (docs/tflite-micro.md).

    A model of several subgraphs (IF, WHILE, CALL_ONCE) needs TFLM from tflite-micro
    e60e8ca (2023-03-29) on; ``plan_model`` says so with a ``TFLMVersionWarning`` unless
    ``version_note=False``.

    Raises ``InputError`` for a file that is not a valid TFLite model or that TFLM cannot
    run (the message names the subgraph, operator, tensor or buffer),
    ``InfeasibleError``/``NoPlanFoundError`` when nothing fits under ``capacity``, and
    ``CheckError`` if a plan failed the checker (nothing is written then).
    """
    if isinstance(src, (bytes, bytearray, memoryview)):
        name, model = "<bytes>", bytes(src)
    else:
        name = os.fspath(src)
        with open(name, "rb") as f:
            model = f.read()
    plan, planned, subgraphs = _plan_tflite(
        model,
        name,
        planner,
        time_limit,
        capacity,
        force,
        threads,
        reference_scratch,
        _scratch_requests(scratch),
        work_limit,
        in_place,
    )
    if dst is not None:
        with open(os.fspath(dst), "wb") as f:
            f.write(planned)
    if subgraphs > 1 and version_note:
        # The same text each time: Python's default filter shows it once per caller.
        warnings.warn(_multi_subgraph_note(), TFLMVersionWarning, stacklevel=2)
    return plan
