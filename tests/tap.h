/* tap.h: a minimal Test Anything Protocol writer for the C tests. */
#ifndef HSP_TAP_H
#define HSP_TAP_H

/* Print "ok N - name" or "not ok N - name"; return cond. */
int tap_ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print "ok N - name # SKIP why": a test that could not run here. */
void tap_skip(const char *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print a "# ..." diagnostic line. */
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print the plan "1..N" for the tests run so far; return the exit status
 * (nonzero if any test failed). */
int tap_done(void);

#endif
