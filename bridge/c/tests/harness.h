/* A tiny test harness: a test is a function; CHECK records a failure with file:line and goes on. */
#ifndef XCC_HARNESS_H
#define XCC_HARNESS_H
#include <stdio.h>

extern int h_failed_checks; /* failures in the current test */
extern const char *h_tmp_dir;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            h_failed_checks++;                                                         \
            fprintf(stderr, "    CHECK failed %s:%d: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                              \
    } while (0)
#define CHECK_MSG(cond, ...)                                                       \
    do {                                                                           \
        if (!(cond)) {                                                             \
            h_failed_checks++;                                                     \
            fprintf(stderr, "    CHECK failed %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                          \
            fprintf(stderr, "\n");                                                 \
        }                                                                          \
    } while (0)

/* record one finished test case */
void h_record(const char *name);
/* vectors: returns the number of vector cases run (each recorded), or -1 if none were found */
int run_vectors(const char *dir);
#endif
