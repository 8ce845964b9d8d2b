/*
 * memplan.h: the C API of memplan, a static memory planner for ML compilers.
 *
 * Buffers have half-open lifetimes [start, end) and sizes; memplan gives each an offset
 * so that buffers live at the same time never share an address, minimising the height
 * (the peak address) or fitting under a capacity.
 *
 * Link with libmemplan_capi.a (plus -lpthread -ldl -lm) or libmemplan_capi.so.
 * Every fallible call returns a memplan_status; memplan_last_error() gives the message.
 * No call ever unwinds into C: a bug becomes MEMPLAN_ERR_INTERNAL.
 *
 * This header is written by hand and committed. crates/memplan-capi/tests/header.rs
 * checks that it declares exactly the functions and status codes of src/lib.rs.
 */
#ifndef MEMPLAN_H
#define MEMPLAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum memplan_status {
    MEMPLAN_OK = 0,
    MEMPLAN_ERR_ARGUMENT = 1,         /* NULL pointer, bad string, index out of range, unknown
                                         planner; the memories calls in the lean build */
    MEMPLAN_ERR_INVALID_PROBLEM = 2,  /* a buffer breaks a rule; the message names it */
    MEMPLAN_ERR_INFEASIBLE = 3,       /* proven: no plan fits under the capacity */
    MEMPLAN_ERR_NOT_FOUND = 4,        /* no plan under the capacity found in time */
    MEMPLAN_ERR_INVALID_PLAN = 5,     /* the checker rejects the offsets */
    MEMPLAN_ERR_IO = 6,               /* a file could not be read or parsed */
    MEMPLAN_ERR_INTERNAL = 7          /* a bug in memplan (a caught panic) */
} memplan_status;

/* A problem under construction: buffers, in the order added. */
typedef struct memplan_problem memplan_problem;
/* The result of memplan_plan: one offset per buffer and the figures. */
typedef struct memplan_result memplan_result;

/* Options. The budget is a work limit (the same plan on every run, at any load and thread
 * count) and a wall-clock limit (a plan the clock stopped may vary); whichever ends first. */
typedef struct memplan_options {
    const char *planner;        /* "auto", "size-best-fit", ...; NULL means "auto" */
    double time_limit_seconds;  /* INFINITY (default): none; negative or NaN: MEMPLAN_ERR_ARGUMENT */
    uint32_t threads;           /* 0: one per core; the plan does not depend on it */
    int32_t fit;                /* 0: minimise the height; 1: fit under `capacity` */
    uint64_t capacity;          /* with fit = 1: the capacity (0 is a capacity too) */
    uint64_t work_limit;        /* work units (default: the library's); UINT64_MAX: none */
} memplan_options;

/* The message of the last failed call on this thread ("" after a success). Valid until
 * the next memplan call on this thread. */
const char *memplan_last_error(void);
/* The library version, a static string. */
const char *memplan_version(void);
/* The library's defaults, shared by every door: planner NULL ("auto"), the default work
 * limit and no time limit (the first plan always finishes), one thread per core, minimise
 * (fit 0). */
memplan_options memplan_options_default(void);

/* Problems. Buffers are validated when the problem is planned or checked. */
memplan_status memplan_problem_new(memplan_problem **out);
void memplan_problem_free(memplan_problem *problem);
/* Adds a buffer live over [start, end) of `size` bytes; alignment 0 or 1 means none. */
memplan_status memplan_problem_add_buffer(memplan_problem *problem, const char *id,
                                          uint64_t start, uint64_t end, uint64_t size,
                                          uint64_t alignment);
/* Pins buffer `index` (order of addition) at `offset`. */
memplan_status memplan_problem_fix_offset(memplan_problem *problem, size_t index,
                                          uint64_t offset);
/* Buffer `index` occupies nothing during [start, end), inside its lifetime. */
memplan_status memplan_problem_add_gap(memplan_problem *problem, size_t index,
                                       uint64_t start, uint64_t end);
/* Shares: buffer `index` may use the storage of buffer `target` (order of addition).
 * MEMPLAN_SHARE_IN_PLACE: it takes target's storage where target dies and it is born;
 * MEMPLAN_SHARE_INSIDE: it lives inside target at `offset` bytes. `required` 0: the
 * planner takes it only where it lowers or keeps the plan; 1: always. */
#define MEMPLAN_SHARE_IN_PLACE 0
#define MEMPLAN_SHARE_INSIDE 1
memplan_status memplan_problem_add_share(memplan_problem *problem, size_t index,
                                         size_t target, int32_t kind, uint64_t offset,
                                         int32_t required);
size_t memplan_problem_len(const memplan_problem *problem);
/* Reads a CSV file in memplan's format (id,lower,upper,size[,alignment,offset,gaps]).
 * The lean library (scripts/lean-capi.sh) has no CSV reader: MEMPLAN_ERR_IO. */
memplan_status memplan_problem_read_csv(const char *path, memplan_problem **out);

/* Planning. `options` may be NULL. The plan returned has passed the checker. On
 * MEMPLAN_ERR_NOT_FOUND, *out holds the lowest plan found, over the capacity (free it
 * with memplan_result_free), or NULL when none was made. */
memplan_status memplan_plan(const memplan_problem *problem, const memplan_options *options,
                            memplan_result **out);
void memplan_result_free(memplan_result *plan);
size_t memplan_result_len(const memplan_result *plan);
/* memplan_result_len(plan) offsets, indexed like the buffers; owned by the plan. */
const uint64_t *memplan_result_offsets(const memplan_result *plan);
uint64_t memplan_result_height(const memplan_result *plan);
uint64_t memplan_result_max_load(const memplan_result *plan);
uint64_t memplan_result_lower_bound(const memplan_result *plan);
int32_t memplan_result_is_optimal(const memplan_result *plan);
/* How many of the problem's shares the plan takes. */
size_t memplan_result_shares_taken(const memplan_result *plan);
/* The planner whose plan this is; owned by the plan. */
const char *memplan_result_planner(const memplan_result *plan);
/* The work units spent making the plan. */
uint64_t memplan_result_work(const memplan_result *plan);
/* "work", "clock" or "cancel" (static) when that limit stopped the call; NULL otherwise. */
const char *memplan_result_stopped_by(const memplan_result *plan);

/* Several memories (full build; the lean library answers MEMPLAN_ERR_ARGUMENT). Every
 * call below plans one problem across memories and returns one memplan_memories_result.
 * Memories are listed fastest first; a capacity or cost of MEMPLAN_NONE (UINT64_MAX) is
 * none (unbounded; no cost), an alignment of 0 is 1. Every memory has a cost, or none
 * has: then the objective is lexicographic (as much traffic as possible in the first
 * memory, then the second, ...); with costs, the least sum of traffic x cost. `options`
 * may be NULL; its planner and goal are not used. The outcomes: MEMPLAN_ERR_INFEASIBLE
 * when no plan exists (proven, a pinned buffer larger than its memory included; the
 * message names the time, the buffers and the memories they overfill together),
 * MEMPLAN_ERR_NOT_FOUND when no plan was found. The plan returned has passed the
 * independent checker. */
#define MEMPLAN_NONE UINT64_MAX
typedef struct memplan_memory {
    const char *name;    /* unique, non-empty, UTF-8 */
    uint64_t capacity;   /* bytes; MEMPLAN_NONE: unbounded */
    uint64_t alignment;  /* every offset in it is a multiple; 0 means 1 */
    uint64_t cost;       /* per byte of traffic; MEMPLAN_NONE: none */
} memplan_memory;
typedef struct memplan_memories_result memplan_memories_result;
/* Gives each buffer a memory and an offset in it. `allowed` (NULL: all) holds per buffer
 * a bit set of the memories it may use (bit m for memory m; one bit pins it; 0 is an
 * error), `accesses` (NULL: 1) its access count (traffic = size x accesses); both
 * memplan_problem_len(problem) long. MEMPLAN_ERR_INVALID_PROBLEM for an empty allowed
 * set or a fixed offset not pinned to one memory or not aligned to it,
 * MEMPLAN_ERR_ARGUMENT for bad memories (duplicate or empty names, costs on some only)
 * or an allowed bit for a memory that does not exist. */
memplan_status memplan_plan_memories(const memplan_problem *problem,
                                     const memplan_memory *memories, size_t memory_count,
                                     const uint64_t *allowed, const uint64_t *accesses,
                                     const memplan_options *options,
                                     memplan_memories_result **out);
/* Spill, the two-memory short form: memory 0 is "fast" (`capacity` bytes), memory 1
 * "slow" (unbounded); the buffers that do not fit in fast memory go to slow memory at
 * the least total cost. `costs` (NULL: each buffer's size) and `memory` (0 either,
 * 1 fast, 2 slow; NULL: all either) hold memplan_problem_len(problem) entries; a fixed
 * buffer is fast (asked to be slow: MEMPLAN_ERR_INVALID_PROBLEM). */
memplan_status memplan_plan_spill(const memplan_problem *problem, uint64_t capacity,
                                  const uint64_t *costs, const int32_t *memory,
                                  const memplan_options *options,
                                  memplan_memories_result **out);
/* Reads the problem file at `path` (CSV or JSON: by the name's .json or .csv, else by
 * the content) with its columns of several memories (memories, accesses, cost, memory;
 * docs/memories.md) and plans it, as the command line does. The memories: the
 * `memory_count` `memories` when given; else, with `spill_capacity` other than
 * MEMPLAN_NONE, spill under it (fast, slow; the file's cost and memory columns); else
 * the JSON file's own `memories` section. The plan is indexed like the file's buffers.
 * MEMPLAN_ERR_IO for a file that cannot be read or parsed, MEMPLAN_ERR_INVALID_PROBLEM
 * for one that breaks a rule (the message names the file, the line and the column or
 * field), MEMPLAN_ERR_ARGUMENT for bad memories or memories and a spill capacity both. */
memplan_status memplan_plan_file(const char *path, const memplan_memory *memories,
                                 size_t memory_count, uint64_t spill_capacity,
                                 const memplan_options *options,
                                 memplan_memories_result **out);
void memplan_memories_result_free(memplan_memories_result *plan);
size_t memplan_memories_result_len(const memplan_memories_result *plan);
/* The memories the plan is across, and memory m's name (owned by the plan; NULL out of
 * range). */
size_t memplan_memories_result_memory_count(const memplan_memories_result *plan);
const char *memplan_memories_result_memory_name(const memplan_memories_result *plan,
                                                size_t m);
/* Each buffer's memory (an index into the memories); owned by the plan. */
const uint32_t *memplan_memories_result_memory(const memplan_memories_result *plan);
/* Each buffer's offset in its own memory; owned by the plan. */
const uint64_t *memplan_memories_result_offsets(const memplan_memories_result *plan);
/* Memory m's height and traffic (0 when m is out of range). */
uint64_t memplan_memories_result_height(const memplan_memories_result *plan, size_t m);
uint64_t memplan_memories_result_traffic(const memplan_memories_result *plan, size_t m);
/* A proven ceiling on memory m's traffic (without costs, given the earlier memories'
   traffic); less the traffic, the memory's gap (0: proven optimal). */
uint64_t memplan_memories_result_traffic_bound(const memplan_memories_result *plan, size_t m);
/* Sum of traffic x cost, or without costs the traffic outside the first memory (spill:
 * the cost of the slow buffers). */
uint64_t memplan_memories_result_cost(const memplan_memories_result *plan);
uint64_t memplan_memories_result_lower_bound(const memplan_memories_result *plan);
int32_t memplan_memories_result_is_optimal(const memplan_memories_result *plan);
/* Checks a plan across memories (each buffer's memory index and offset in it, `count`
 * of each) with the independent checker: capacities, allowed sets, pins, alignments.
 * MEMPLAN_OK, or MEMPLAN_ERR_INVALID_PLAN naming the buffer. */
memplan_status memplan_check_memories(const memplan_problem *problem,
                                      const memplan_memory *memories, size_t memory_count,
                                      const uint64_t *allowed, const uint64_t *accesses,
                                      const uint32_t *memory, const uint64_t *offsets,
                                      size_t count);

/* Checks `count` offsets against the problem with the independent checker: MEMPLAN_OK,
 * or MEMPLAN_ERR_INVALID_PLAN naming the first violation. memplan_check_fit also
 * requires every buffer to end at or below `capacity`. */
memplan_status memplan_check(const memplan_problem *problem, const uint64_t *offsets,
                             size_t count);
memplan_status memplan_check_fit(const memplan_problem *problem, const uint64_t *offsets,
                                 size_t count, uint64_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* MEMPLAN_H */
