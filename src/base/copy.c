/* Non-temporal copy kernels. Streaming stores write whole cache lines to
 * memory without first reading them (no read-for-ownership) and without
 * keeping them in this core's caches: for copies larger than the caches
 * that halves the memory traffic of the destination, and for data that a
 * core in another cache domain reads next it avoids leaving the lines
 * modified here. Each kernel aligns the destination to a cache line with a
 * regular copy, streams whole vectors, finishes the tail with a regular
 * copy and fences. */
#include "base/copy.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <tern/status.h>

#include "base/cfg.h"
#include "base/time.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TN_COPY_X86 1
#endif

#define LINE 64u

#ifdef TN_COPY_X86

/* Bytes to copy regularly so that dst + head is line-aligned. */
static inline size_t head_bytes(const void *dst, size_t n)
{
    size_t h = (LINE - ((uintptr_t)dst & (LINE - 1))) & (LINE - 1);
    return h < n ? h : n;
}

static void copy_nt_sse2(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    size_t h = head_bytes(d, n);
    memcpy(d, s, h);
    d += h, s += h, n -= h;
    for (; n >= 64; d += 64, s += 64, n -= 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, a);
        _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), c);
        _mm_stream_si128((__m128i *)(d + 48), e);
    }
    _mm_sfence();
    memcpy(d, s, n);
}

__attribute__((target("avx2"))) static void copy_nt_avx2(void *dst, const void *src,
                                                         size_t n)
{
    char *d = dst;
    const char *s = src;
    size_t h = head_bytes(d, n);
    memcpy(d, s, h);
    d += h, s += h, n -= h;
    for (; n >= 128; d += 128, s += 128, n -= 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)s);
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(s + 64));
        __m256i e = _mm256_loadu_si256((const __m256i *)(s + 96));
        _mm256_stream_si256((__m256i *)d, a);
        _mm256_stream_si256((__m256i *)(d + 32), b);
        _mm256_stream_si256((__m256i *)(d + 64), c);
        _mm256_stream_si256((__m256i *)(d + 96), e);
    }
    for (; n >= 32; d += 32, s += 32, n -= 32)
        _mm256_stream_si256((__m256i *)d, _mm256_loadu_si256((const __m256i *)s));
    _mm_sfence();
    memcpy(d, s, n);
}

__attribute__((target("avx512f"))) static void copy_nt_avx512(void *dst, const void *src,
                                                              size_t n)
{
    char *d = dst;
    const char *s = src;
    size_t h = head_bytes(d, n);
    memcpy(d, s, h);
    d += h, s += h, n -= h;
    for (; n >= 256; d += 256, s += 256, n -= 256) {
        __m512i a = _mm512_loadu_si512((const void *)s);
        __m512i b = _mm512_loadu_si512((const void *)(s + 64));
        __m512i c = _mm512_loadu_si512((const void *)(s + 128));
        __m512i e = _mm512_loadu_si512((const void *)(s + 192));
        _mm512_stream_si512((void *)d, a);
        _mm512_stream_si512((void *)(d + 64), b);
        _mm512_stream_si512((void *)(d + 128), c);
        _mm512_stream_si512((void *)(d + 192), e);
    }
    for (; n >= 64; d += 64, s += 64, n -= 64)
        _mm512_stream_si512((void *)d, _mm512_loadu_si512((const void *)s));
    _mm_sfence();
    memcpy(d, s, n);
}

static tn_copy_isa_t detect(void)
{
    __builtin_cpu_init();
    /* libgcc checks XCR0 too: a feature is reported only when the kernel
     * saves the registers it needs. */
    if (__builtin_cpu_supports("avx512f"))
        return TN_COPY_ISA_AVX512;
    if (__builtin_cpu_supports("avx2"))
        return TN_COPY_ISA_AVX2;
    return TN_COPY_ISA_SSE2; /* part of x86-64 */
}

#else

static tn_copy_isa_t detect(void)
{
    return TN_COPY_ISA_NONE;
}

#endif

static tn_copy_isa_t best_isa = (tn_copy_isa_t)-1;
static tn_copy_fn best_fn;

tn_copy_isa_t tn_copy_isa_best(void)
{
    /* Racing first calls compute the same value: no lock needed. */
    tn_copy_isa_t isa = __atomic_load_n(&best_isa, __ATOMIC_ACQUIRE);
    if ((int)isa < 0) {
        isa = detect();
        __atomic_store_n(&best_fn, tn_copy_nt_fn(isa), __ATOMIC_RELAXED);
        __atomic_store_n(&best_isa, isa, __ATOMIC_RELEASE);
    }
    return isa;
}

const char *tn_copy_isa_name(tn_copy_isa_t isa)
{
    switch (isa) {
    case TN_COPY_ISA_NONE: return "none";
    case TN_COPY_ISA_SSE2: return "sse2";
    case TN_COPY_ISA_AVX2: return "avx2";
    case TN_COPY_ISA_AVX512: return "avx512";
    }
    return "?";
}

int tn_copy_isa_supported(tn_copy_isa_t isa)
{
    return isa != TN_COPY_ISA_NONE && isa <= tn_copy_isa_best();
}

tn_copy_fn tn_copy_nt_fn(tn_copy_isa_t isa)
{
#ifdef TN_COPY_X86
    if (isa == TN_COPY_ISA_NONE || isa > detect())
        return NULL;
    switch (isa) {
    case TN_COPY_ISA_SSE2: return copy_nt_sse2;
    case TN_COPY_ISA_AVX2: return copy_nt_avx2;
    case TN_COPY_ISA_AVX512: return copy_nt_avx512;
    default: break;
    }
#endif
    return NULL;
}

void tn_copy_nt(void *dst, const void *src, size_t n)
{
    if ((int)__atomic_load_n(&best_isa, __ATOMIC_ACQUIRE) < 0)
        tn_copy_isa_best();
    tn_copy_fn f = __atomic_load_n(&best_fn, __ATOMIC_RELAXED);
    if (f)
        f(dst, src, n);
    else
        memcpy(dst, src, n);
}

/* ---- the regular copy of a message's payload -------------------------------- */

static void copy_msg_libc(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}

#ifdef TN_COPY_X86
__attribute__((target("avx2"))) static void copy_msg_avx2(void *dst, const void *src,
                                                          size_t n)
{
    if (n < 32 || n > TN_COPY_MSG_MAX) {
        memcpy(dst, src, n);
        return;
    }
    char *d = dst, *dlast = d + n - 32;
    const char *s = src;
    __m256i last = _mm256_loadu_si256((const __m256i *)(s + n - 32));
    for (; n > 128; d += 128, s += 128, n -= 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)s);
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(s + 64));
        __m256i e = _mm256_loadu_si256((const __m256i *)(s + 96));
        _mm256_storeu_si256((__m256i *)d, a);
        _mm256_storeu_si256((__m256i *)(d + 32), b);
        _mm256_storeu_si256((__m256i *)(d + 64), c);
        _mm256_storeu_si256((__m256i *)(d + 96), e);
    }
    for (; n > 32; d += 32, s += 32, n -= 32)
        _mm256_storeu_si256((__m256i *)d, _mm256_loadu_si256((const __m256i *)s));
    _mm256_storeu_si256((__m256i *)dlast, last); /* the last 1..32 bytes */
}
#endif

static void copy_msg_first(void *dst, const void *src, size_t n);
_Atomic(tn_copy_fn) tn_copy_msg_impl = copy_msg_first;

static tn_copy_fn copy_msg_choose(void)
{
#ifdef TN_COPY_X86
    if (tn_copy_isa_best() >= TN_COPY_ISA_AVX2)
        return copy_msg_avx2;
#endif
    return copy_msg_libc;
}

/* The first call chooses and stores its choice; racing first calls store
 * the same value. */
static void copy_msg_first(void *dst, const void *src, size_t n)
{
    tn_copy_fn f = copy_msg_choose();
    __atomic_store_n(&tn_copy_msg_impl, f, __ATOMIC_RELAXED);
    f(dst, src, n);
}

const char *tn_copy_msg_name(void)
{
    return copy_msg_choose() == copy_msg_libc ? "memcpy" : "avx2";
}

/* ---- calibration ------------------------------------------------------------ */

#define CAL_HOT_MIN  (256u << 10)
#define CAL_COLD_MIN (4u << 10)
#define CAL_BATCH    (8u << 20) /* bytes copied per timed sample at least */

static void copy_reg(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}

/* Waits until every store before it is globally visible, so that a timed
 * copy is a finished copy (stores otherwise retire into buffers first). */
#ifdef TN_COPY_X86
static inline void drain(void)
{
    _mm_mfence();
}
#else
static inline void drain(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
#endif

/* CPU time of this thread: a timed sample during which the thread was
 * not running (another process took the core) is not a measurement. */
static uint64_t thread_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int preempted(uint64_t wall, uint64_t cpu)
{
    return cpu * 10 < wall * 9;
}

/* Copies until fn runs at its steady rate: at least two copies and
 * until two in a row agree within 3%, at most 12 (and 1 GiB). The cache
 * and prefetchers adapt to a run of copies: at sizes near the last-level
 * cache a regular copy speeds up over several copies (14 vs 7 GB/s after
 * 8 copies of 32 MiB on the VM this was written on), and a copy after one
 * of the other kind runs in the state that one left. A run of transfers of
 * one size sees the steady rate. */
static void settle(tn_copy_fn fn, char *dst, const char *src, size_t n)
{
    double last = 0;
    size_t moved = 0;
    for (int i = 0; i < 12 && moved < ((size_t)1 << 30); i++) {
        uint64_t t0 = tn_time_ns();
        fn(dst, src, n);
        drain();
        double r = (double)n / (double)(tn_time_ns() - t0 + 1);
        moved += n;
        if (i >= 1 && r < last * 1.03 && r > last / 1.03)
            return;
        last = r;
    }
}

/* GB/s of fn in steady state over a batch of at least two copies
 * (CAL_BATCH bytes or more); call settle() first. */
static double rate_hot(tn_copy_fn fn, char *dst, const char *src, size_t n, int *bad)
{
    size_t k = n >= CAL_BATCH / 2 ? 2 : CAL_BATCH / n;
    uint64_t c0 = thread_ns(), t0 = tn_time_ns();
    for (size_t i = 0; i < k; i++) {
        fn(dst, src, n);
        __asm__ __volatile__("" ::: "memory");
    }
    drain();
    uint64_t ns = tn_time_ns() - t0;
    *bad = preempted(ns, thread_ns() - c0);
    return (double)(n * k) / (double)(ns ? ns : 1);
}

#ifdef TN_COPY_X86
static void evict(char *p, size_t n)
{
    for (size_t off = 0; off < n; off += LINE)
        _mm_clflush(p + off);
    _mm_mfence();
}
#else
static void evict(char *p, size_t n)
{
    (void)p, (void)n;
}
#endif

/* GB/s of one copy of n bytes into a destination just evicted from this
 * core's caches; the best of several (the eviction is not timed). */
static double rate_cold(tn_copy_fn fn, char *dst, const char *src, size_t n, int *bad)
{
    size_t k = n >= CAL_BATCH / 8 ? 3 : 9;
    double best = 0;
    *bad = 1;
    for (size_t i = 0; i < k; i++) {
        evict(dst, n);
        uint64_t t0 = tn_time_ns();
        fn(dst, src, n);
        drain();
        uint64_t ns = tn_time_ns() - t0;
        double r = (double)n / (double)(ns ? ns : 1);
        if (r > best)
            best = r;
        *bad = 0; /* single short copies: the best of several is clean */
    }
    return best;
}

/* 2^f for f in [0, 1] (no libm): the exponential series of f ln 2. */
static double exp2_unit(double f)
{
    double x = f * 0.69314718055994531, term = 1, sum = 1;
    for (int i = 1; i < 12; i++) {
        term *= x / i;
        sum += term;
    }
    return sum;
}

/* A point favours the non-temporal copy when it is faster by more than
 * this: within it the two are equal on a busy machine, and then the
 * regular copy is the better choice, since it leaves the data in the
 * cache that a consumer sharing it reads next. */
#define CAL_MARGIN 1.03

size_t tn_copy_crossover(const tn_copy_point_t *pt, int n)
{
    if (n <= 0 || pt[n - 1].nt <= pt[n - 1].reg * CAL_MARGIN)
        return SIZE_MAX;
    int i = n - 1;
    while (i > 0 && pt[i - 1].nt > pt[i - 1].reg * CAL_MARGIN)
        i--;
    if (i == 0)
        return pt[0].size;
    /* ratio nt/reg goes from at most the margin at i-1 to above it at i:
     * where it crosses the margin, in log2(size) between the two points */
    double r0 = pt[i - 1].nt / pt[i - 1].reg, r1 = pt[i].nt / pt[i].reg;
    double f = r1 > r0 ? (CAL_MARGIN - r0) / (r1 - r0) : 1.0;
    if (f < 0)
        f = 0;
    if (f > 1)
        f = 1;
    double ratio = (double)pt[i].size / (double)pt[i - 1].size; /* 2 when doubling */
    double x =
        (double)pt[i - 1].size * (ratio == 2.0 ? exp2_unit(f) : 1.0 + f * (ratio - 1));
    size_t v = ((size_t)x + 4095) & ~(size_t)4095;
    return v > pt[i].size ? pt[i].size : v;
}

uint64_t tn_copy_islands(const tn_copy_point_t *pt, int n, size_t cross)
{
    uint64_t m = 0;
    for (int i = 0; i < n; i++) {
        size_t s = pt[i].size;
        if (s >= cross || (s & (s - 1)) != 0 || pt[i].nt <= pt[i].reg * CAL_MARGIN)
            continue;
        m |= 1ull << __builtin_ctzll((unsigned long long)s);
    }
    return m;
}

/* Timings of one copy that spread wider than this (best over worst) were
 * taken while something else used the core or the memory: on a quiet
 * machine the steady-state samples agree within a few per cent. */
#define CAL_SPREAD_MAX 1.5
/* A hot crossover under the estimate (one L3) by more than this factor is
 * not believed: the regular copy stays ahead until the two buffers
 * overflow the last-level cache (35 MiB measured against a 35.75 MiB L3 on
 * the VM this was written on), islands aside. */
#define CAL_FAR 8

int tn_copy_calib_trust(const tn_copy_calib_t *m, size_t est_hot, char *why, size_t len)
{
    char a[32], b[32];
    if (m->disturbed) {
        snprintf(why, len,
                 "the machine was busy while measuring (samples taken while the "
                 "thread was preempted, or the memory's rate varied by more than 2x)");
        return 0;
    }
    if (m->spread > CAL_SPREAD_MAX) {
        snprintf(why, len,
                 "repeated timings of one copy differed by %.0f%% (more than %.0f%%): "
                 "the machine was busy",
                 (m->spread - 1) * 100, (CAL_SPREAD_MAX - 1) * 100);
        return 0;
    }
    if (est_hot != SIZE_MAX && m->hot < est_hot / CAL_FAR) {
        tn_format_bytes(m->hot, a, sizeof(a));
        tn_format_bytes(est_hot, b, sizeof(b));
        snprintf(why, len,
                 "non-temporal stores measured faster from %s with the destination "
                 "in cache, under an eighth of the estimate (%s, one L3): regular "
                 "copies measured that slow mean a busy machine",
                 a, b);
        return 0;
    }
    snprintf(why, len, "timings consistent (spread %.0f%%%s)",
             m->spread > 0 ? (m->spread - 1) * 100 : 0.0,
             m->spread > 0 ? "" : ", not recorded");
    return 1;
}

/* One curve, stopped once nt has won at two sizes in a row by more than
 * the margin. The widest spread of a kind's repeated hot samples at one
 * size goes to *spread. */
static int curve(tn_copy_fn nt, int cold, size_t lo, size_t hi, char *dst,
                 const char *src, tn_copy_point_t *pt, int *disturbed, double *spread)
{
    int n = 0, wins = 0;
    for (size_t size = lo; size <= hi && n < TN_COPY_CURVE_MAX; size *= 2) {
        memcpy(dst, src, size); /* first touch */
        double best[2] = {0, 0};
        int reps = size >= (16u << 20) ? 2 : 4;
        /* each kind in a run of its own (see settle), the one that goes
         * first alternating from size to size; the best sample of each */
        for (int k = 0; k < 2; k++) {
            int is_nt = (k + n) & 1;
            tn_copy_fn fn = is_nt ? nt : copy_reg;
            int retries = 4; /* samples taken while preempted are taken again */
            double worst = 0;
            if (!cold)
                settle(fn, dst, src, size);
            for (int r = 0; r < reps; r++) {
                int bad;
                double v = cold ? rate_cold(fn, dst, src, size, &bad)
                                : rate_hot(fn, dst, src, size, &bad);
                if (bad && retries > 0) {
                    retries--;
                    r--;
                    continue;
                }
                *disturbed |= bad;
                if (v > best[is_nt])
                    best[is_nt] = v;
                if (!bad && v > 0 && (worst == 0 || v < worst))
                    worst = v;
            }
            /* the cold samples are single short copies: their spread is
             * the timer's, so only the hot ones say how quiet it was */
            if (!cold && worst > 0 && best[is_nt] / worst > *spread)
                *spread = best[is_nt] / worst;
        }
        double reg = best[0], ntr = best[1];
        pt[n].size = size;
        pt[n].reg = reg;
        pt[n].nt = ntr;
        n++;
        wins = ntr > reg * CAL_MARGIN ? wins + 1 : 0;
        if (wins >= 2)
            break;
    }
    return n;
}

int tn_copy_calibrate(size_t hot_max, size_t cold_max, tn_copy_calib_t *out)
{
    tn_copy_isa_t isa = tn_copy_isa_best();
    tn_copy_fn nt = tn_copy_nt_fn(isa);
    if (!nt)
        return TERN_ERR_UNSUPPORTED;
    if (hot_max < CAL_HOT_MIN)
        hot_max = CAL_HOT_MIN;
    if (cold_max < CAL_COLD_MIN)
        cold_max = CAL_COLD_MIN;
    size_t len = hot_max > cold_max ? hot_max : cold_max;
    /* Fresh shared memory like a segment's (same page size policy),
     * touched only as far as the curves go. */
    char *mem = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED)
        return TERN_ERR_NOMEM;
    char *src = mem, *dst = mem + len;
    tn_copy_calib_t c;
    memset(&c, 0, sizeof(c));
    c.isa = (int)isa;
    double t0 = tn_time_s();
    memset(src, 0x5a, hot_max > cold_max ? hot_max : cold_max);
    c.ncold = curve(nt, 1, CAL_COLD_MIN, cold_max, dst, src, c.cold_pt, &c.disturbed,
                    &c.spread);
    c.nhot =
        curve(nt, 0, CAL_HOT_MIN, hot_max, dst, src, c.hot_pt, &c.disturbed, &c.spread);
    /* Beyond the private caches the non-temporal rate is the memory's and
     * hardly depends on the size: a point far below the others was taken
     * while something else used the memory bandwidth. */
    double lo = 0, hi = 0;
    for (int i = 0; i < c.nhot; i++)
        if (c.hot_pt[i].size >= (2u << 20)) {
            double v = c.hot_pt[i].nt;
            lo = lo == 0 || v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    if (lo > 0 && hi > 2 * lo)
        c.disturbed = 1;
    /* to the precision the cache file keeps: read back, it is judged the
     * same (tn_copy_calib_trust) */
    c.spread = (double)(long)(c.spread * 1000 + 0.5) / 1000;
    c.hot = tn_copy_crossover(c.hot_pt, c.nhot);
    c.hot_islands = tn_copy_islands(c.hot_pt, c.nhot, c.hot);
    c.cold = tn_copy_crossover(c.cold_pt, c.ncold);
    c.seconds = tn_time_s() - t0;
    munmap(mem, 2 * len);
    *out = c;
    return TERN_OK;
}
