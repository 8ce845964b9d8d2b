/*
 * bench_plan: times memplan_plan through the C API on CSV problems (id,lower,upper,size),
 * read here so that it also runs against the lean library, which has no CSV reader.
 *
 *   bench_plan [--capacity BYTES] [--time-limit SECONDS] [--planner NAME] FILE...
 *
 * Prints one line per file: name, buffers, height, optimal, planner, a hash of the
 * offsets (FNV-1a over their 8-byte little-endian values, to compare plans), milliseconds
 * of the memplan_plan call (CLOCK_MONOTONIC). The plan passes memplan_check before it
 * counts. scripts/lean-capi-bench.sh links it against the full and the lean library.
 */
#define _POSIX_C_SOURCE 199309L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "memplan.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Reads `path` into a new problem; returns 0 on success. */
static int read_problem(const char *path, memplan_problem **out) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 1;
    }
    char line[512];
    if (!fgets(line, sizeof line, f)) { /* the header */
        fclose(f);
        return 1;
    }
    if (memplan_problem_new(out) != MEMPLAN_OK) {
        fclose(f);
        return 1;
    }
    char id[128];
    uint64_t lower, upper, size;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%127[^,],%" SCNu64 ",%" SCNu64 ",%" SCNu64, id, &lower, &upper,
                   &size) != 4) {
            continue;
        }
        if (memplan_problem_add_buffer(*out, id, lower, upper, size, 1) != MEMPLAN_OK) {
            fprintf(stderr, "%s: %s\n", path, memplan_last_error());
            fclose(f);
            return 1;
        }
    }
    fclose(f);
    return 0;
}

/* FNV-1a, 64 bits, over the offsets' bytes (little-endian): equal plans, equal hashes. */
static uint64_t offsets_hash(const uint64_t *offsets, size_t n) {
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 8; k++) {
            h = (h ^ ((offsets[i] >> (8 * k)) & 0xff)) * 0x100000001b3u;
        }
    }
    return h;
}

int main(int argc, char **argv) {
    memplan_options options = memplan_options_default();
    int first = 1;
    while (first < argc && strncmp(argv[first], "--", 2) == 0 && first + 1 < argc) {
        if (strcmp(argv[first], "--capacity") == 0) {
            options.fit = 1;
            options.capacity = strtoull(argv[first + 1], NULL, 10);
        } else if (strcmp(argv[first], "--time-limit") == 0) {
            options.time_limit_seconds = strtod(argv[first + 1], NULL);
        } else if (strcmp(argv[first], "--planner") == 0) {
            options.planner = argv[first + 1];
        } else {
            fprintf(stderr, "unknown option %s\n", argv[first]);
            return 2;
        }
        first += 2;
    }
    for (int i = first; i < argc; i++) {
        memplan_problem *problem = NULL;
        if (read_problem(argv[i], &problem) != 0) {
            return 1;
        }
        memplan_result *plan = NULL;
        double t0 = now_ms();
        memplan_status s = memplan_plan(problem, &options, &plan);
        double ms = now_ms() - t0;
        const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        if (s == MEMPLAN_OK) {
            if (memplan_check(problem, memplan_result_offsets(plan), memplan_result_len(plan)) !=
                MEMPLAN_OK) {
                fprintf(stderr, "%s: the plan fails the checker: %s\n", name, memplan_last_error());
                return 1;
            }
            printf("%s %zu %" PRIu64 " %d %s %016" PRIx64 " %.1f\n", name,
                   memplan_problem_len(problem), memplan_result_height(plan),
                   (int)memplan_result_is_optimal(plan), memplan_result_planner(plan),
                   offsets_hash(memplan_result_offsets(plan), memplan_result_len(plan)), ms);
            memplan_result_free(plan);
        } else {
            printf("%s %zu - status=%d - - %.1f\n", name, memplan_problem_len(problem), (int)s,
                   ms);
        }
        memplan_problem_free(problem);
    }
    return 0;
}
