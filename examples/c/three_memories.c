/* Three memories from C: tcm (10 bytes), ocram (8 bytes, alignment 4) and dram
 * (unbounded); d is pinned to tcm, e to dram, b may not use tcm, and a is read five
 * times. Plans, prints each buffer's memory and offset, checks the plan, and shows that
 * the checker rejects a buffer moved outside its allowed set. Exits non-zero on any
 * surprise. Built and run by examples/c/run.sh. */
#include <stdio.h>
#include <string.h>

#include "memplan.h"

int main(void) {
    memplan_problem *p = NULL;
    if (memplan_problem_new(&p) != MEMPLAN_OK) return 1;
    const char *ids[] = {"a", "b", "c", "d", "e"};
    const uint64_t start[] = {0, 0, 1, 0, 2}, end[] = {3, 2, 3, 3, 4}, size[] = {4, 4, 4, 4, 8};
    for (int i = 0; i < 5; i++) {
        if (memplan_problem_add_buffer(p, ids[i], start[i], end[i], size[i], 1) != MEMPLAN_OK) {
            fprintf(stderr, "%s\n", memplan_last_error());
            return 1;
        }
    }
    const memplan_memory memories[] = {
        {"tcm", 10, 1, MEMPLAN_NONE},
        {"ocram", 8, 4, MEMPLAN_NONE},
        {"dram", MEMPLAN_NONE, 1, MEMPLAN_NONE},
    };
    const uint64_t all = 7, tcm = 1, ocram = 2, dram = 4;
    const uint64_t allowed[] = {all, ocram | dram, all, tcm, dram};
    const uint64_t accesses[] = {5, 1, 1, 2, 1};
    memplan_memories_result *plan = NULL;
    memplan_status s = memplan_plan_memories(p, memories, 3, allowed, accesses, NULL, &plan);
    if (s != MEMPLAN_OK) {
        fprintf(stderr, "plan: %s\n", memplan_last_error());
        return 1;
    }
    size_t n = memplan_memories_result_len(plan);
    const uint32_t *memory = memplan_memories_result_memory(plan);
    const uint64_t *offsets = memplan_memories_result_offsets(plan);
    for (size_t i = 0; i < n; i++) {
        printf("%s: %s at %llu\n", ids[i], memories[memory[i]].name,
               (unsigned long long)offsets[i]);
        if (!(allowed[i] >> memory[i] & 1)) return 2;
    }
    for (size_t m = 0; m < 3; m++) {
        printf("%s: height %llu, traffic %llu\n", memories[m].name,
               (unsigned long long)memplan_memories_result_height(plan, m),
               (unsigned long long)memplan_memories_result_traffic(plan, m));
    }
    printf("cost %llu, lower bound %llu, optimal %d\n",
           (unsigned long long)memplan_memories_result_cost(plan),
           (unsigned long long)memplan_memories_result_lower_bound(plan),
           memplan_memories_result_is_optimal(plan));
    if (memory[3] != 0 || memory[4] != 2) return 3; /* the pins */
    if (memplan_check_memories(p, memories, 3, allowed, accesses, memory, offsets, n) != MEMPLAN_OK) {
        fprintf(stderr, "check: %s\n", memplan_last_error());
        return 4;
    }
    uint32_t moved[5];
    memcpy(moved, memory, sizeof moved);
    moved[1] = 0; /* b into tcm, which it may not use */
    if (memplan_check_memories(p, memories, 3, allowed, accesses, moved, offsets, n) !=
            MEMPLAN_ERR_INVALID_PLAN ||
        strstr(memplan_last_error(), "'b'") == NULL) {
        return 5;
    }
    printf("the checker rejects b in tcm: %s\n", memplan_last_error());
    memplan_memories_result_free(plan);
    memplan_problem_free(p);
    return 0;
}
