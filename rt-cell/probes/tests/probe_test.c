/* Unit tests of the probe's arithmetic and output, and a quick run of the binary whose verdict
 * depends only on what it wrote (never on a time it measured). Prints "N passed, N failed". */
#include "probe.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static int passed, failed, checks_failed;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            checks_failed++;                                                           \
            fprintf(stderr, "    CHECK failed %s:%d: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                              \
    } while (0)

static void record(const char *name) {
    if (checks_failed) {
        failed++;
        fprintf(stderr, "FAIL %s\n", name);
    } else {
        passed++;
    }
    checks_failed = 0;
}

static void test_summary(void) {
    struct samples s;
    samples_init(&s, 2); /* grows */
    for (int i = 100; i >= 1; i--) {
        samples_add(&s, i);
    }
    struct summary r = summarise(&s);
    CHECK(r.n == 100);
    CHECK(r.min == 1 && r.max == 100);
    CHECK(r.p50 == 50 && r.p90 == 90 && r.p99 == 99 && r.p999 == 100);
    CHECK(r.mean > 50.49 && r.mean < 50.51);
    CHECK(r.std > 29.0 && r.std < 29.1); /* sample standard deviation of 1..100: 29.011 */
    CHECK(quantile_sorted(s.v, s.n, 0) == 1);
    samples_free(&s);
    struct samples e;
    samples_init(&e, 0);
    struct summary z = summarise(&e);
    CHECK(z.n == 0 && z.max == 0);
    samples_free(&e);
    record("summary");
}

static char *capture(void (*write)(FILE *)) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    write(f);
    fclose(f);
    return buf;
}

static void write_row(FILE *f) {
    struct row r;
    row_begin(&r, f, "t");
    row_str(&r, "s", "a\"b\\c\n");
    row_int(&r, "i", -5);
    row_num(&r, "x", 1.5);
    row_bool(&r, "b", 1);
    int64_t v[] = {1, 2, 3, 4};
    row_ints(&r, "v", v, 4);
    row_cdf(&r, "c", v, 4, 2);
    row_end(&r);
}

static void test_row(void) {
    char *out = capture(write_row);
    CHECK(strcmp(out, "{\"test\":\"t\",\"s\":\"a\\\"b\\\\c\\u000a\",\"i\":-5,\"x\":1.5,\"b\":true,"
                      "\"v\":[1,2,3,4],\"c\":[[1,0],[2,0.5],[4,1]]}\n") == 0);
    if (checks_failed) {
        fprintf(stderr, "    got %s", out);
    }
    free(out);
    record("json row");
}

static int run(const char *cmd, char **out) {
    FILE *p = popen(cmd, "r");
    size_t cap = 1 << 20, len = 0;
    *out = calloc(cap, 1);
    size_t n;
    while ((n = fread(*out + len, 1, cap - 1 - len, p)) > 0) {
        len += n;
    }
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) {
        n++;
    }
    return n;
}

static void test_binary(const char *probe) {
    char cmd[512], *out;
    /* SCHED_OTHER: nothing here may need privileges or starve the machine's other work */
    snprintf(cmd, sizeof cmd, "%s --policy other --quick all 2>/dev/null", probe);
    CHECK(run(cmd, &out) == 0);
    CHECK(count(out, "\n") == 1 + 1 + 4 + 1 + 5 + 1 + 2); /* one row per line, every test's rows */
    CHECK(count(out, "{\"test\":\"switch\",\"threads\":") == 4);
    CHECK(strstr(out, "{\"test\":\"switch\",\"threads\":1000,") != NULL);
    CHECK(count(out, "\"policy\":\"SCHED_OTHER\"") == 1 + 4 + 1 + 5 + 1 + 2);
    CHECK(count(out, "{\"test\":\"irqrate\"") == 5);
    CHECK(strstr(out, "\"priority_inheritance\":true") && strstr(out, "\"priority_inheritance\":false"));
    CHECK(strstr(out, "\"timeline_ns\":[[\"L locks\",0],") != NULL);
    CHECK(strstr(out, "{\"test\":\"hygiene\",\"kernel\":") == out);
    CHECK(count(out, "\"error\"") == 0);
    free(out);
    record("a quick run writes every row");

    snprintf(cmd, sizeof cmd, "%s --policy sometimes hygiene 2>&1", probe);
    CHECK(run(cmd, &out) == 2);
    CHECK(strcmp(out, "rtdroid-probe: --policy sometimes: must be fifo or other\n") == 0);
    free(out);
    snprintf(cmd, sizeof cmd, "%s --quick 2>&1 >/dev/null | tail -1", probe);
    run(cmd, &out);
    CHECK(strcmp(out, "rtdroid-probe: no test named\n") == 0);
    free(out);
    snprintf(cmd, sizeof cmd, "%s --prio 5 hygiene 2>&1", probe);
    CHECK(run(cmd, &out) == 2);
    CHECK(strstr(out, "--prio 5: must be 13..99") != NULL);
    free(out);
    snprintf(cmd, sizeof cmd, "%s --irq-periods-us 100,0 irqrate 2>&1", probe);
    CHECK(run(cmd, &out) == 2);
    CHECK(strstr(out, "--irq-periods-us 100,0: must be 1 to 32 periods of 5..1000000 us") != NULL);
    free(out);
    record("a bad command line is exit 2 with one line");

    snprintf(cmd, sizeof cmd, "%s --policy other --irq-count 30 --irq-periods-us 500,200 irqrate 2>/dev/null", probe);
    CHECK(run(cmd, &out) == 0);
    CHECK(count(out, "{\"test\":\"irqrate\"") == 2);
    CHECK(strstr(out, "\"period_ns\":500000,") && strstr(out, "\"period_ns\":200000,"));
    CHECK(count(out, "\"generated\":3") == 2); /* 30, or 31 when the last read took two */
    free(out);
    record("irqrate's long form: the periods and count asked for");
}

int main(int argc, char **argv) {
    test_summary();
    test_row();
    if (argc > 1) {
        test_binary(argv[1]);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
