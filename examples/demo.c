/*
 * demo.c - the example program for `make demo` and tests/e2e.
 *
 * A small program whose profile is known before it is recorded, so each
 * stage of sfdo can be checked against expectations rather than eyeballed:
 * perf must find these functions, sfdo-convert must give them these shares,
 * and the plugin must see the branch below taken about one time in eight.
 *
 * Where the time goes at -O2 (x86-64, GCC 12; shares are approximate and
 * vary by a few points between machines):
 *
 *   crc32_update        ~50%  bitwise CRC-32 over a 64 KiB buffer; hottest
 *   insertion_sort      ~20%  sorts many small arrays of random numbers
 *   matrix_multiply     ~15%  repeated 48x48 integer matrix product
 *   mix64                ~8%  a leaf function called exactly
 *                             RARE_CALLS * SCALE / 100 times, by
 *   count_rare_values    ~6%  whose branch on the hash is taken ~1/8 of
 *                             the time (the exact count is printed)
 *
 * Each of these is kept out of line and not cloned (noinline, noclone), so
 * perf attributes samples to it under its own name; tests look the names up.
 *
 * The output depends only on the scale argument, never on the compiler or the
 * optimization level: the results are computed with unsigned integers only,
 * which wrap in a defined way, so a build with a profile must print exactly
 * what the -O2 build prints.
 *
 * Usage: demo [SCALE]   SCALE is a percentage of the default work (1..10000,
 *                       default 100, about one second at -O2).
 */

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Work per phase at SCALE 100; tuned for about one second in total. */
enum {
    CRC_BUFFER_BYTES = 64 * 1024,
    CRC_PASSES       = 700,
    SORT_ARRAY_LEN   = 256,
    SORT_ROUNDS      = 18000,
    MATRIX_N         = 48,
    MATRIX_ROUNDS    = 3500,
    RARE_CALLS       = 40000000, /* calls to mix64 */
};

/* Buckets for the rare path: the top three bits of a hash pick one. */
#define RARE_BUCKETS 8

#define MEASURED __attribute__((noinline, noclone))

/* xorshift64: a deterministic generator, the same on every platform. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return x;
}

/*
 * Reflected CRC-32 (the zlib polynomial), one bit at a time. The table-free
 * form is deliberately slow: it makes this the hottest function by design,
 * with a tight inner loop whose test is true for about half of the bits.
 */
MEASURED uint32_t crc32_update(uint32_t crc, const uint8_t *buf, size_t len)
{
    crc = ~crc;
    for (size_t i = 0; i < len; i++) {
        crc ^= buf[i];
        for (int bit = 0; bit < 8; bit++) {
            if (crc & 1u)
                crc = (crc >> 1) ^ 0xEDB88320u;
            else
                crc >>= 1;
        }
    }
    return ~crc;
}

/* Plain insertion sort: a data-dependent inner loop, quadratic on purpose. */
MEASURED void insertion_sort(uint32_t *values, size_t count)
{
    for (size_t i = 1; i < count; i++) {
        uint32_t key = values[i];
        size_t j = i;
        while (j > 0 && values[j - 1] > key) {
            values[j] = values[j - 1];
            j--;
        }
        values[j] = key;
    }
}

/* PRODUCT = LEFT * RIGHT for N x N matrices stored row by row. */
MEASURED void matrix_multiply(uint32_t *product, const uint32_t *left,
                              const uint32_t *right, size_t n)
{
    for (size_t row = 0; row < n; row++) {
        for (size_t col = 0; col < n; col++) {
            uint32_t sum = 0;
            for (size_t k = 0; k < n; k++)
                sum += left[row * n + k] * right[k * n + col];
            product[row * n + col] = sum;
        }
    }
}

/*
 * The splitmix64 finalizer: a bijective hash. A leaf, called once per
 * iteration of count_rare_values, so its call count is known exactly.
 */
MEASURED uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9u;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBu;
    x ^= x >> 31;
    return x;
}

/*
 * Hash CALLS consecutive integers and count those whose low three bits are
 * zero: a branch taken about 1/8 of the time, in an order the hash makes
 * hard to predict. The rare path stores to memory, which keeps GCC from
 * turning the branch into a conditional move; the profile should show it.
 */
MEASURED uint64_t count_rare_values(uint64_t calls,
                                    uint64_t histogram[RARE_BUCKETS])
{
    uint64_t rare = 0;
    for (uint64_t i = 0; i < calls; i++) {
        uint64_t hash = mix64(i);
        if ((hash & 7u) == 0) {
            histogram[hash >> 61]++;
            rare++;
        }
    }
    return rare;
}

/* Phase drivers: set up inputs, call the measured function, fold results. */

static uint32_t run_crc_phase(long passes)
{
    static uint8_t buffer[CRC_BUFFER_BYTES];
    uint64_t state = 0x9E3779B97F4A7C15u;
    for (size_t i = 0; i < sizeof buffer; i++)
        buffer[i] = (uint8_t)next_random(&state);

    uint32_t crc = 0;
    for (long pass = 0; pass < passes; pass++) {
        crc = crc32_update(crc, buffer, sizeof buffer);
        buffer[(size_t)pass % sizeof buffer] ^= (uint8_t)crc; /* no reuse */
    }
    return crc;
}

static uint64_t run_sort_phase(long rounds)
{
    uint32_t values[SORT_ARRAY_LEN];
    uint64_t state = 0xD1B54A32D192ED03u;
    uint64_t digest = 0;
    for (long round = 0; round < rounds; round++) {
        for (size_t i = 0; i < SORT_ARRAY_LEN; i++)
            values[i] = (uint32_t)next_random(&state);
        insertion_sort(values, SORT_ARRAY_LEN);
        for (size_t i = 0; i < SORT_ARRAY_LEN; i++)
            digest = digest * 31u + values[i];
    }
    return digest;
}

static uint32_t run_matrix_phase(long rounds)
{
    static uint32_t left[MATRIX_N * MATRIX_N], right[MATRIX_N * MATRIX_N],
                    product[MATRIX_N * MATRIX_N];
    uint64_t state = 0x2545F4914F6CDD1Du;
    for (size_t i = 0; i < MATRIX_N * MATRIX_N; i++) {
        left[i] = (uint32_t)next_random(&state);
        right[i] = (uint32_t)next_random(&state);
    }
    uint32_t trace = 0;
    for (long round = 0; round < rounds; round++) {
        matrix_multiply(product, left, right, MATRIX_N);
        /* Feed the product back in so no round can be skipped or hoisted. */
        memcpy(left, product, sizeof left);
        left[(size_t)round % (MATRIX_N * MATRIX_N)] ^= 1u;
        for (size_t i = 0; i < MATRIX_N; i++)
            trace += product[i * MATRIX_N + i];
    }
    return trace;
}

static uint64_t parse_scale(int argc, char **argv)
{
    if (argc < 2)
        return 100;
    char *end;
    long scale = strtol(argv[1], &end, 10);
    if (argc > 2 || *end != '\0' || end == argv[1] || scale < 1 ||
        scale > 10000) {
        fprintf(stderr, "usage: demo [SCALE]  (percent of the default work, "
                        "1..10000)\n");
        exit(1);
    }
    return (uint64_t)scale;
}

/* N * SCALE / 100, but at least 1 so every phase runs at any scale. */
static long scaled(long n, uint64_t scale)
{
    uint64_t v = (uint64_t)n * scale / 100u;
    return v ? (long)v : 1;
}

int main(int argc, char **argv)
{
    uint64_t scale = parse_scale(argc, argv);

    uint32_t crc = run_crc_phase(scaled(CRC_PASSES, scale));
    uint64_t sorted = run_sort_phase(scaled(SORT_ROUNDS, scale));
    uint32_t trace = run_matrix_phase(scaled(MATRIX_ROUNDS, scale));

    uint64_t histogram[RARE_BUCKETS] = {0};
    uint64_t calls = (uint64_t)scaled(RARE_CALLS, scale);
    uint64_t rare = count_rare_values(calls, histogram);

    printf("scale %" PRIu64 "%%\n", scale);
    printf("crc32   0x%08" PRIx32 "\n", crc);
    printf("sorted  0x%016" PRIx64 "\n", sorted);
    printf("matrix  0x%08" PRIx32 "\n", trace);
    printf("rare    %" PRIu64 " of %" PRIu64 " (%.2f%%), buckets",
           rare, calls, 100.0 * (double)rare / (double)calls);
    for (int b = 0; b < RARE_BUCKETS; b++)
        printf(" %" PRIu64, histogram[b]);
    printf("\n");
    return 0;
}
