/*
 * Builds a small problem, plans it, checks the plan, and reads a benchmark CSV.
 *
 *   cargo build -p memplan-capi
 *   gcc -Wall -Wextra -Werror -std=c11 -I crates/memplan-capi/include \
 *       examples/c/plan_and_check.c target/debug/libmemplan_capi.a -lpthread -ldl -lm \
 *       -o plan_and_check
 *   ./plan_and_check benchmarks/minimalloc-challenging/example.12.csv
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "memplan.h"

#define TRY(call)                                                                  \
    do {                                                                           \
        memplan_status s_ = (call);                                                \
        if (s_ != MEMPLAN_OK) {                                                    \
            fprintf(stderr, "%s failed (%d): %s\n", #call, (int)s_,                \
                    memplan_last_error());                                         \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

int main(int argc, char **argv) {
    printf("memplan %s\n", memplan_version());

    /* Four tensors of a tiny graph: weights pinned at 0, two activations, a scratch
     * buffer that is idle during [3, 5). Lifetimes are half-open [start, end). */
    memplan_problem *problem = NULL;
    TRY(memplan_problem_new(&problem));
    TRY(memplan_problem_add_buffer(problem, "weights", 0, 10, 64, 1));
    TRY(memplan_problem_add_buffer(problem, "act0", 0, 4, 32, 16));
    TRY(memplan_problem_add_buffer(problem, "act1", 4, 10, 32, 16));
    TRY(memplan_problem_add_buffer(problem, "tmp", 2, 6, 8, 1));
    TRY(memplan_problem_fix_offset(problem, 0, 0));
    TRY(memplan_problem_add_gap(problem, 3, 3, 5));

    memplan_options options = memplan_options_default();
    options.planner = "auto";
    memplan_result *plan = NULL;
    TRY(memplan_plan(problem, &options, &plan));

    size_t n = memplan_result_len(plan);
    const uint64_t *offsets = memplan_result_offsets(plan);
    for (size_t i = 0; i < n; i++) {
        printf("buffer %zu at offset %" PRIu64 "\n", i, offsets[i]);
    }
    printf("height %" PRIu64 ", max load %" PRIu64 ", %s, planner %s\n",
           memplan_result_height(plan), memplan_result_max_load(plan),
           memplan_result_is_optimal(plan) ? "optimal" : "not proven optimal",
           memplan_result_planner(plan));
    TRY(memplan_check(problem, offsets, n));

    /* A broken plan is caught, and the message names the buffers. */
    uint64_t bad[4] = {0, 0, 0, 0};
    memplan_status s = memplan_check(problem, bad, 4);
    if (s != MEMPLAN_ERR_INVALID_PLAN) {
        fprintf(stderr, "expected MEMPLAN_ERR_INVALID_PLAN, got %d\n", (int)s);
        return 1;
    }
    printf("broken plan rejected: %s\n", memplan_last_error());

    /* A capacity below the max load is proven infeasible. */
    memplan_options fit = memplan_options_default();
    fit.fit = 1;
    fit.capacity = 64;
    memplan_result *none = NULL;
    s = memplan_plan(problem, &fit, &none);
    if (s != MEMPLAN_ERR_INFEASIBLE || none != NULL) {
        fprintf(stderr, "expected MEMPLAN_ERR_INFEASIBLE, got %d\n", (int)s);
        return 1;
    }
    printf("capacity 64: %s\n", memplan_last_error());
    memplan_result_free(plan);
    memplan_problem_free(problem);

    /* A CSV file, when given. */
    if (argc > 1) {
        memplan_problem *file = NULL;
        TRY(memplan_problem_read_csv(argv[1], &file));
        memplan_result *fplan = NULL;
        TRY(memplan_plan(file, NULL, &fplan));
        TRY(memplan_check(file, memplan_result_offsets(fplan), memplan_result_len(fplan)));
        printf("%s: %zu buffers, height %" PRIu64 ", max load %" PRIu64 "\n", argv[1],
               memplan_problem_len(file), memplan_result_height(fplan),
               memplan_result_max_load(fplan));
        memplan_result_free(fplan);
        memplan_problem_free(file);
    }
    printf("ok\n");
    return 0;
}
