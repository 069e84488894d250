/*
 * svmalom_value: the arithmetic of Malom's stored values that both the retrograde analysis
 * (solver/retro.h, which finds each position's best turn into a child while it solves) and the
 * ranking of draws (solver/svmalom_ultra.h) need: ../shared/docs/malom-format.md §5.8.
 *
 * A stored value is a pair (key1, key2) relative to the sector value v(S); key1 = 0 with key2 >= 0
 * is a Count. Per entry of a sector being exported the producer keeps one ma_svm_state: the key
 * (first the "exit", the best draw-valued turn into a child, then the stored value), a working
 * counter of the ranking and the Count counter.
 */
#ifndef MA_SVMALOM_VALUE_H
#define MA_SVMALOM_VALUE_H

#include <stdint.h>

/* One stored value, relative to v(S): key1 = 0 with key2 >= 0 is a Count. */
typedef struct ma_svm_key {
    int16_t k1, k2;
} ma_svm_key;

/* key1 of an entry without a draw-valued turn into a child ("no exit"). */
#define MA_SVM_NO_EXIT INT16_MIN

/* Bit of ma_svm_state.count: the entry's stored value is settled (a win, a loss, no value, or a
 * ranked draw); an open draw has it clear. */
#define MA_SVM_SETTLED 0x8000u
#define MA_SVM_COUNT(c) ((c) & 0x7FFFu)

/* What the export keeps per entry of a member sector (8 bytes, one cache access):
 *  - key: the exit while the entry is an open draw, then its stored (key1, key2);
 *  - rem: for a draw, its internal draw successor classes not yet known to let the mover force
 *    key1 >= t (counted down by the ranking, meaningless once settled);
 *  - count: MA_SVM_SETTLED, and the number of distinct internal successor classes that are draws
 *    (the counter a Count stores, malom-format.md §8.5). */
typedef struct ma_svm_state {
    ma_svm_key key;
    uint16_t rem, count;
} ma_svm_state;

/* §5.8: a < b in the order of turn values (key1 first; among equal key1 < 0 longer is better,
 * among equal key1 > 0 shorter is better; all key1 = 0 are equal). */
static inline int ma_svm_less(int a1, int a2, int b1, int b2)
{
    if (a1 != b1)
        return a1 < b1;
    if (a1 < 0)
        return a2 < b2;
    if (a1 > 0)
        return a2 > b2;
    return 0;
}

/* §5.8: the value, for the side to move in P, of a turn into a successor stored as (k1, k2) in
 * sector C, with cor = v(C) + v(P). */
static inline void ma_svm_turn_value(int k1, int k2, int cor, int *m1, int *m2)
{
    int k1c = k1 + cor;
    if (k1c == 0) {
        *m1 = 0;
        *m2 = 0;
        return;
    }
    long long prod = (long long)k1c * k1;
    int sign = prod > 0 ? 1 : prod < 0 ? -1 : 0;
    *m1 = -k1c;
    *m2 = sign * k2 + 1;
}

#endif
