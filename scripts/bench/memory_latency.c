// This machine's latency of a dependent read at a random place in a buffer of N MB: the walk
// through the resolver's cell tiles (56 MB) on points spread over the world is a few such reads.
// Built and run by scripts/bench/bench-memory-latency.sh.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
    size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 56, lines = mb * 1024 * 1024 / 64, steps = 20000000;
    uint64_t *memory = aligned_alloc(64, lines * 64);
    size_t *order = malloc(lines * sizeof *order);
    if (memory == NULL || order == NULL || lines < 2) return 1;
    for (size_t i = 0; i < lines; i++) order[i] = i;
    srand(1);
    for (size_t i = lines - 1; i > 0; i--) {  // one cycle through every cache line, in random order
        size_t j = ((size_t)rand() * RAND_MAX + (size_t)rand()) % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < lines; i++) memory[order[i] * 8] = order[(i + 1) % lines] * 8;
    struct timespec start, end;
    size_t at = 0;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (size_t i = 0; i < steps; i++) at = memory[at];
    clock_gettime(CLOCK_MONOTONIC, &end);
    double ns = ((double)(end.tv_sec - start.tv_sec) * 1e9 + (double)(end.tv_nsec - start.tv_nsec)) / (double)steps;
    printf("{\"bench\":\"memory-latency\",\"mb\":%zu,\"ns_per_dependent_read\":%.1f,\"end\":%zu}\n", mb, ns, at);
    free(order);
    free(memory);
    return 0;
}
