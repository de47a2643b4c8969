/* The C interface end to end: links libkestrel_verifier_capi.a (gcc, no Rust toolchain).
 *
 *   verify GOLDEN.proof GOLDEN.vk [STATEMENT.file STATEMENT.vk]
 *
 * Verifies the golden Fibonacci proof (public values recomputed here), rejects a copy with
 * one byte flipped, and, given a statement file and its RV64IM key, verifies it in memory
 * (in an arena of 64 KiB) and through a read callback that feeds the file in small chunks,
 * rejects tampered and truncated copies, a failing callback and a file that is not a
 * statement, and checks the argument errors.
 * Exit status 0 when every check passed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kestrel_verifier.h"

#define GOLDILOCKS_P 0xffffffff00000001ull

static uint8_t arena[8u << 20];
static int failures;

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "%s: read failed\n", path);
        exit(2);
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void expect(const char *what, int32_t got, int32_t want, const KestrelReport *r)
{
    int ok = got == want;
    printf("%s %s: %s (%d)%s%s, arena peak %zu B\n", ok ? "ok  " : "FAIL", what,
           kestrel_error_name(got), got, r && r->message[0] ? ": " : "", r ? r->message : "",
           r ? r->arena_peak : (size_t)0);
    if (!ok)
        failures++;
}

/* A statement file arriving over a link that delivers at most `chunk` bytes at a time: the
 * kestrel_read_fn fills the verifier's buffer from as many chunks as it takes. */
struct link {
    const uint8_t *data;
    size_t len, pos, chunk;
    size_t calls;
    size_t fail_at; /* the read fails once this many bytes were delivered (SIZE_MAX: never) */
    size_t seeks;
    int fickle;     /* after a seek, deliver the byte 30 bytes past the target flipped */
    size_t flip_at; /* SIZE_MAX: none */
};

static int link_read(void *ctx, uint8_t *buf, size_t len)
{
    struct link *l = ctx;
    l->calls++;
    if (l->pos >= l->fail_at)
        return -1;
    if (len > l->len - l->pos)
        return 1; /* the end: fewer than len bytes left */
    for (size_t done = 0; done < len;) {
        size_t n = len - done < l->chunk ? len - done : l->chunk;
        memcpy(buf + done, l->data + l->pos, n);
        if (l->flip_at >= l->pos && l->flip_at < l->pos + n)
            buf[done + (l->flip_at - l->pos)] ^= 1;
        l->pos += n;
        done += n;
    }
    return 0;
}

/* A kestrel_seek_fn: the link can go back to an offset it already delivered. */
static int link_seek(void *ctx, size_t pos)
{
    struct link *l = ctx;
    l->seeks++;
    if (pos > l->pos)
        return 1;
    l->pos = pos;
    if (l->fickle)
        l->flip_at = pos + 30;
    return 0;
}

static struct link link_over(const uint8_t *data, size_t len)
{
    struct link l = {data, len, 0, 7, 0, SIZE_MAX, 0, 0, SIZE_MAX};
    return l;
}

/* The Fibonacci example's result: the last row's b after 2^log_rows rows from (1, 1). */
static uint64_t fib_result(unsigned log_rows)
{
    uint64_t a = 1, b = 1;
    for (uint64_t i = 1; i < (1ull << log_rows); i++) {
        unsigned __int128 s = (unsigned __int128)a + b;
        uint64_t next = (uint64_t)(s % GOLDILOCKS_P);
        a = b;
        b = next;
    }
    return b;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 5) {
        fprintf(stderr, "usage: %s GOLDEN.proof GOLDEN.vk [STATEMENT.file STATEMENT.vk]\n", argv[0]);
        return 2;
    }
    KestrelReport r;
    size_t n, vk_len;
    uint8_t *proof = read_file(argv[1], &n);
    uint8_t *vk = read_file(argv[2], &vk_len);
    if (vk_len != 32) {
        fprintf(stderr, "%s: not a 32-byte verifying key\n", argv[2]);
        return 2;
    }
    const uint64_t pub[3] = {1, 1, fib_result(6)};

    expect("golden proof verifies", kestrel_verify_fibonacci(vk, proof, n, pub, 3, arena, sizeof arena, &r),
           KESTREL_OK, &r);
    proof[n / 2] ^= 1;
    /* Malformed or invalid, depending on where the flip lands (a count or a value): both reject. */
    int grc = kestrel_verify_fibonacci(vk, proof, n, pub, 3, arena, sizeof arena, &r);
    expect("golden proof, one byte flipped, is rejected", grc,
           grc == KESTREL_ERR_MALFORMED ? KESTREL_ERR_MALFORMED : KESTREL_ERR_INVALID, &r);
    proof[n / 2] ^= 1;
    const uint64_t wrong[3] = {1, 1, pub[2] + 1};
    expect("golden proof with a wrong result is rejected",
           kestrel_verify_fibonacci(vk, proof, n, wrong, 3, arena, sizeof arena, &r), KESTREL_ERR_INVALID, &r);
    expect("golden proof, truncated, is rejected",
           kestrel_verify_fibonacci(vk, proof, n - 1, pub, 3, arena, sizeof arena, &r), KESTREL_ERR_MALFORMED,
           &r);
    expect("a null arena is an argument error",
           kestrel_verify_fibonacci(vk, proof, n, pub, 3, NULL, 0, &r), KESTREL_ERR_ARGUMENT, NULL);
    expect("a null report is an argument error",
           kestrel_verify_fibonacci(vk, proof, n, pub, 3, arena, sizeof arena, NULL), KESTREL_ERR_ARGUMENT, NULL);

    if (argc == 5) {
        size_t m, svk_len;
        uint8_t *file = read_file(argv[3], &m);
        uint8_t *svk = read_file(argv[4], &svk_len);
        if (svk_len != 32) {
            fprintf(stderr, "%s: not a 32-byte verifying key\n", argv[4]);
            return 2;
        }
        /* In memory, read in place: the least arena (64 KiB for RV64IM). */
        static uint8_t small_arena[64u << 10];
        int32_t rc = kestrel_verify_statement(svk, file, m, small_arena, sizeof small_arena, &r);
        expect("statement file verifies in memory, in a 64 KiB arena", rc, KESTREL_OK, &r);
        uint64_t exit_code = r.exit_code;
        size_t in_memory_peak = r.arena_peak;
        if (rc == KESTREL_OK) {
            printf("     exit code %llu, output (%zu bytes): %.*s\n", (unsigned long long)r.exit_code,
                   r.output_len, (int)r.output_len, (const char *)r.output);
            /* The output is the one the file claims (after magic, version, exit code and length). */
            if (m < 22 || r.output_len > m - 22 || memcmp(r.output, file + 22, r.output_len) != 0) {
                printf("FAIL output differs from the file's\n");
                failures++;
            }
        }

        /* Through the read callback, 7 bytes per link chunk. */
        struct link l = link_over(file, m);
        rc = kestrel_verify_statement_stream(svk, link_read, &l, arena, sizeof arena, &r);
        expect("statement file verifies through the read callback", rc, KESTREL_OK, &r);
        printf("     %zu callback calls, %zu of %zu bytes delivered, arena peak %zu B (in memory %zu B)\n",
               l.calls, l.pos, m, r.arena_peak, in_memory_peak);
        if (rc == KESTREL_OK && (r.exit_code != exit_code || l.pos != m || r.output_len < 1 ||
                                 memcmp(r.output, file + 22, r.output_len) != 0)) {
            printf("FAIL the streamed statement differs from the in-memory one\n");
            failures++;
        }
        /* With a seek callback too: the arena of the in-memory call. */
        l = link_over(file, m);
        rc = kestrel_verify_statement_rewind(svk, link_read, link_seek, &l, small_arena, sizeof small_arena, &r);
        expect("statement file verifies through read and seek callbacks, in a 64 KiB arena", rc, KESTREL_OK,
               &r);
        printf("     %zu read calls, %zu seek, arena peak %zu B\n", l.calls, l.seeks, r.arena_peak);
        if (rc == KESTREL_OK && (r.exit_code != exit_code || l.seeks != 1 || l.pos != m)) {
            printf("FAIL the rewinding stream differs from the in-memory one\n");
            failures++;
        }
        l = link_over(file, m);
        l.fickle = 1;
        expect("an input that changes a byte when read again is rejected",
               kestrel_verify_statement_rewind(svk, link_read, link_seek, &l, small_arena, sizeof small_arena,
                                               &r),
               KESTREL_ERR_READ, &r);
        expect("a null seek callback is an argument error",
               kestrel_verify_statement_rewind(svk, link_read, NULL, &l, arena, sizeof arena, &r),
               KESTREL_ERR_ARGUMENT, NULL);

        l = link_over(file, m - 1);
        expect("statement file, truncated, through the callback, is rejected",
               kestrel_verify_statement_stream(svk, link_read, &l, arena, sizeof arena, &r),
               KESTREL_ERR_MALFORMED, &r);
        l = link_over(file, m);
        l.fail_at = m / 2;
        expect("a failing read callback is a read error",
               kestrel_verify_statement_stream(svk, link_read, &l, arena, sizeof arena, &r), KESTREL_ERR_READ,
               &r);
        l = link_over(file, m);
        l.fail_at = 3;
        expect("a read callback failing in the statement header is a read error",
               kestrel_verify_statement_stream(svk, link_read, &l, arena, sizeof arena, &r), KESTREL_ERR_READ,
               &r);
        expect("a null read callback is an argument error",
               kestrel_verify_statement_stream(svk, NULL, &l, arena, sizeof arena, &r), KESTREL_ERR_ARGUMENT,
               NULL);

        file[m - m / 3] ^= 0x10;
        rc = kestrel_verify_statement(svk, file, m, arena, sizeof arena, &r);
        /* Malformed or invalid, depending on where the flip lands: both reject. */
        expect("statement file, one byte flipped, is rejected", rc,
               rc == KESTREL_ERR_MALFORMED ? KESTREL_ERR_MALFORMED : KESTREL_ERR_INVALID, &r);
        l = link_over(file, m);
        rc = kestrel_verify_statement_stream(svk, link_read, &l, arena, sizeof arena, &r);
        expect("statement file, one byte flipped, through the callback, is rejected", rc,
               rc == KESTREL_ERR_MALFORMED ? KESTREL_ERR_MALFORMED : KESTREL_ERR_INVALID, &r);
        expect("a Fibonacci proof is not a statement file",
               kestrel_verify_statement(svk, proof, n, arena, sizeof arena, &r), KESTREL_ERR_FORMAT, &r);
        l = link_over(proof, n);
        expect("a Fibonacci proof through the callback is not a statement file",
               kestrel_verify_statement_stream(svk, link_read, &l, arena, sizeof arena, &r), KESTREL_ERR_FORMAT,
               &r);
        free(file);
        free(svk);
    }
    free(proof);
    free(vk);
    printf("%s\n", failures ? "FAILED" : "all checks passed");
    return failures ? 1 : 0;
}
