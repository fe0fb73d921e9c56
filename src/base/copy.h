/* Copy kernels: the regular copy (libc memcpy) and copies with
 * non-temporal (streaming) stores in AVX-512, AVX2 and SSE2 forms, the best
 * one picked once from the CPU. Mechanism only: which copy a transfer gets
 * is decided in core/copy.c. */
#ifndef TN_COPY_H
#define TN_COPY_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    TN_COPY_ISA_NONE = 0,   /* no non-temporal kernel (not x86-64) */
    TN_COPY_ISA_SSE2 = 1,   /* movntdq, 16 B per store */
    TN_COPY_ISA_AVX2 = 2,   /* vmovntdq ymm, 32 B per store */
    TN_COPY_ISA_AVX512 = 3, /* vmovntdq zmm, 64 B per store */
} tn_copy_isa_t;

typedef void (*tn_copy_fn)(void *dst, const void *src, size_t n);

/* The widest kernel this CPU and kernel support (cpuid and XCR0, read
 * once). */
tn_copy_isa_t tn_copy_isa_best(void);
const char *tn_copy_isa_name(tn_copy_isa_t isa);
/* 1 if the kernel of isa can run on this CPU. */
int tn_copy_isa_supported(tn_copy_isa_t isa);

/* The non-temporal kernel of isa, or NULL when unsupported. Each copies n
 * bytes (any alignment, any n; the unaligned head and the tail under one
 * vector use regular stores) and ends with sfence, so the data is
 * globally visible before any later store of the caller - a flag written
 * after the copy is never seen before the data. */
tn_copy_fn tn_copy_nt_fn(tn_copy_isa_t isa);

/* Non-temporal copy with the best kernel (memcpy without one). */
void tn_copy_nt(void *dst, const void *src, size_t n);

/* ---- the regular copy of a message's payload ----------------------------- */

/* Regular (cached) copy of a payload of up to TN_COPY_MSG_MAX bytes into a
 * message queue, where the sender's next store (the slot the receiver
 * polls) waits behind the copy's: 32-byte vector stores in one loop, the
 * last vector overlapping (no tail call), where the CPU offers AVX2;
 * memcpy otherwise and for larger copies. glibc's memcpy takes `rep
 * movsb` from 2112 bytes on the AMD EPYC (Zen 4) this was measured on,
 * which cost 8 KiB Medium round trips 15-20 ns per half round trip
 * (docs/design/active-messages.md, ninth pass). The kernel is chosen on
 * the first call (__builtin_cpu_supports, no ifunc, so TSan builds are not
 * affected). */
#define TN_COPY_MSG_MAX ((size_t)64 << 10)
extern _Atomic(tn_copy_fn) tn_copy_msg_impl;
static inline void tn_copy_msg(void *dst, const void *src, size_t n)
{
    __atomic_load_n(&tn_copy_msg_impl, __ATOMIC_RELAXED)(dst, src, n);
}
/* The kernel tn_copy_msg uses on this CPU (for tests): "avx2" or "memcpy". */
const char *tn_copy_msg_name(void);

/* ---- measuring where non-temporal stores start to pay -------------------- */

#define TN_COPY_CURVE_MAX 16

/* GB/s of the regular and the non-temporal copy of size bytes. */
typedef struct tn_copy_point {
    size_t size;
    double reg, nt;
} tn_copy_point_t;

/* Two measured curves and their crossovers (the size from which the
 * non-temporal copy is faster at every larger size measured; SIZE_MAX when
 * it never is within the sizes measured):
 *  - hot: the same destination copied again and again, so it stays in
 *    this core's caches - the case of a consumer that shares them;
 *  - cold: the destination evicted from this core's caches before every
 *    copy - the case of a consumer elsewhere, which took the lines last. */
typedef struct tn_copy_calib {
    int isa;              /* tn_copy_isa_t measured */
    size_t hot, cold;     /* crossovers in bytes, or SIZE_MAX */
    uint64_t hot_islands; /* bit b: below the hot crossover, the
                                non-temporal copy was still faster (by the
                                margin) at 2^b bytes - the size where the
                                two buffers just overflow the L2 */
    int nhot, ncold;
    tn_copy_point_t hot_pt[TN_COPY_CURVE_MAX], cold_pt[TN_COPY_CURVE_MAX];
    double seconds; /* time the measurement took */
    int disturbed;  /* the machine was busy while measuring (the
                                thread was preempted, or the memory's rate
                                varied by more than 2x): not worth keeping */
    double spread;  /* the widest best/worst ratio of the repeated timings
                                of one copy at one size (hot curve); 0 when
                                not known (a cache file older than it) */
    int fallback;   /* hot, cold and islands are the estimate: the
                                measurement (curves kept) was not trusted
                                (tn_copy_calib_trust) */
} tn_copy_calib_t;

/* Measures both curves on the calling thread's CPU: hot from 256 KiB up to
 * hot_max, cold from 4 KiB up to cold_max, doubling, each stopped early
 * once the non-temporal copy has won at two sizes in a row. Uses its own
 * scratch memory (2 x hot_max, touched only as far as the sizes go).
 * Returns TERN_OK, TERN_ERR_NOMEM, or TERN_ERR_UNSUPPORTED without a
 * non-temporal kernel. */
int tn_copy_calibrate(size_t hot_max, size_t cold_max, tn_copy_calib_t *out);

/* Whether a measurement's thresholds may be used (1), or the estimate's
 * instead (0): not when the machine was busy (m->disturbed), nor when the
 * repeated timings of one copy spread by more than 50%, nor when
 * non-temporal stores came out faster from a hot size under an eighth of
 * the estimate's (est_hot: one L3) - regular copies measured slow while
 * other processes thrash the caches; the case that chose non-temporal
 * copies for 1 MiB (2.5-3x slower) on a loaded machine. A measurement on
 * the regular side of the estimate is kept: the regular copy is the safe
 * mistake. why gets the reason either way. */
int tn_copy_calib_trust(const tn_copy_calib_t *m, size_t est_hot, char *why, size_t len);

/* The crossover of a curve: the first size from which nt is faster than
 * reg by more than 3% at every later point, interpolated (where nt/reg
 * crosses 1.03) between that point and the one before it in log2(size)
 * and rounded up to 4 KiB; SIZE_MAX if the last point does not favour
 * nt; the first size if every point does. Within 3% the regular copy is
 * kept: it leaves the data in the cache a consumer may share. */
size_t tn_copy_crossover(const tn_copy_point_t *pt, int n);
/* Sizes below cross where nt is faster by the margin all the same, as bits
 * of their log2 (points of other sizes are ignored). */
uint64_t tn_copy_islands(const tn_copy_point_t *pt, int n, size_t cross);

#endif
