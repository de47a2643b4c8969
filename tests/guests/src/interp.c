/* interp: a small stack-language interpreter. The private input is the program: whitespace
 * separated tokens, each an integer literal (pushed) or a word:
 *   + - * / %   arithmetic on int64 (division by zero exits with code 6)
 *   dup drop swap over   stack shuffles
 *   < =         comparisons (push 1 or 0)
 *   .           pop and print in decimal with a newline (public output)
 *   [ ... ]     loop: at "]" pop a value and jump back after the matching "[" if it is non-zero
 * Errors: stack underflow/overflow exits 7, unknown word 8, unbalanced brackets 9. */
#include "kestrel.h"

#define MAXPROG 65536
#define MAXTOK 8192
#define MAXSTACK 256

enum { T_NUM, T_ADD, T_SUB, T_MUL, T_DIV, T_MOD, T_DUP, T_DROP, T_SWAP, T_OVER, T_LT, T_EQ, T_PRINT, T_OPEN, T_CLOSE };

static char text[MAXPROG + 1];
static int kind[MAXTOK];
static int64_t arg[MAXTOK]; /* literal value, or matching bracket index */
static int64_t st[MAXSTACK];

static int word_is(const char *s, size_t n, const char *w) { return strlen(w) == n && memcmp(s, w, n) == 0; }

int main(void) {
    size_t len = ks_read_all(text, MAXPROG);
    int ntok = 0, open[64], depth = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r')) i++;
        if (i >= len) break;
        size_t s = i;
        while (i < len && !(text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r')) i++;
        const char *w = text + s;
        size_t n = i - s;
        if (ntok >= MAXTOK) return 9;
        int k;
        int neg = (n > 1 && w[0] == '-');
        if ((w[0] >= '0' && w[0] <= '9') || (neg && w[1] >= '0' && w[1] <= '9')) {
            int64_t v = 0;
            for (size_t j = neg; j < n; j++) {
                if (w[j] < '0' || w[j] > '9') return 8;
                v = v * 10 + (w[j] - '0');
            }
            kind[ntok] = T_NUM;
            arg[ntok] = neg ? -v : v;
            ntok++;
            continue;
        }
        if (word_is(w, n, "+")) k = T_ADD;
        else if (word_is(w, n, "-")) k = T_SUB;
        else if (word_is(w, n, "*")) k = T_MUL;
        else if (word_is(w, n, "/")) k = T_DIV;
        else if (word_is(w, n, "%")) k = T_MOD;
        else if (word_is(w, n, "dup")) k = T_DUP;
        else if (word_is(w, n, "drop")) k = T_DROP;
        else if (word_is(w, n, "swap")) k = T_SWAP;
        else if (word_is(w, n, "over")) k = T_OVER;
        else if (word_is(w, n, "<")) k = T_LT;
        else if (word_is(w, n, "=")) k = T_EQ;
        else if (word_is(w, n, ".")) k = T_PRINT;
        else if (word_is(w, n, "[")) k = T_OPEN;
        else if (word_is(w, n, "]")) k = T_CLOSE;
        else return 8;
        if (k == T_OPEN) {
            if (depth >= 64) return 9;
            open[depth++] = ntok;
        } else if (k == T_CLOSE) {
            if (depth == 0) return 9;
            arg[ntok] = open[--depth];
        }
        kind[ntok++] = k;
    }
    if (depth != 0) return 9;

    int sp = 0;
#define NEED(k) if (sp < (k)) return 7
    for (int pc = 0; pc < ntok; pc++) {
        int64_t a, b;
        switch (kind[pc]) {
        case T_NUM: if (sp >= MAXSTACK) return 7; st[sp++] = arg[pc]; break;
        case T_ADD: NEED(2); sp--; st[sp - 1] = (int64_t)((uint64_t)st[sp - 1] + (uint64_t)st[sp]); break;
        case T_SUB: NEED(2); sp--; st[sp - 1] = (int64_t)((uint64_t)st[sp - 1] - (uint64_t)st[sp]); break;
        case T_MUL: NEED(2); sp--; st[sp - 1] = (int64_t)((uint64_t)st[sp - 1] * (uint64_t)st[sp]); break;
        case T_DIV: case T_MOD:
            NEED(2); b = st[--sp]; a = st[sp - 1];
            if (b == 0) return 6;
            if (a == INT64_MIN && b == -1) st[sp - 1] = kind[pc] == T_DIV ? a : 0;
            else st[sp - 1] = kind[pc] == T_DIV ? a / b : a % b;
            break;
        case T_DUP: NEED(1); if (sp >= MAXSTACK) return 7; st[sp] = st[sp - 1]; sp++; break;
        case T_DROP: NEED(1); sp--; break;
        case T_SWAP: NEED(2); a = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = a; break;
        case T_OVER: NEED(2); if (sp >= MAXSTACK) return 7; st[sp] = st[sp - 2]; sp++; break;
        case T_LT: NEED(2); sp--; st[sp - 1] = st[sp - 1] < st[sp]; break;
        case T_EQ: NEED(2); sp--; st[sp - 1] = st[sp - 1] == st[sp]; break;
        case T_PRINT: NEED(1); ks_write_i64(1, st[--sp]); ks_write_str(1, "\n"); break;
        case T_OPEN: break;
        case T_CLOSE: NEED(1); if (st[--sp] != 0) pc = (int)arg[pc]; break;
        }
    }
    return 0;
}
