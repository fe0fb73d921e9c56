/* The raw libfabric baseline for network rows: the same provider and
 * endpoint type as Tern's network transport, opened directly by the
 * benchmark, with the same completion semantics (fi_writemsg with
 * FI_DELIVERY_COMPLETE, FI_INJECT up to the inject size; fi_readmsg), so
 * that "tern - raw" is Tern's own overhead over the provider. */
#ifndef TB_RAW_OFI_H
#define TB_RAW_OFI_H

#include <stddef.h>
#include <stdint.h>

typedef struct tb_raw_ofi tb_raw_ofi_t;

/* Collective over all ranks after tern_init: rank 0 and `peer` open raw
 * endpoints with a registered buffer of `bytes` each and exchange their
 * names through Tern. Returns NULL on the other ranks, or (on every rank,
 * with a message from rank 0) when libfabric cannot be used. */
tb_raw_ofi_t *tb_raw_ofi_setup(int peer, size_t bytes);
void tb_raw_ofi_teardown(tb_raw_ofi_t *r);

/* Rank 0: ns per blocking put (get = 0) or get of n bytes, waited to
 * completion one at a time, over iters operations. The peer must be in
 * tb_raw_ofi_serve meanwhile. */
double tb_raw_ofi_lat(tb_raw_ofi_t *r, int get, size_t n, long iters);
/* Rank 0: MB/s of windows of `window` puts/gets of n bytes, each window
 * waited to completion, iters operations in all. */
double tb_raw_ofi_bw(tb_raw_ofi_t *r, int get, size_t n, long iters, int window);
/* Rank 0 and the peer together: ns per half round trip of a message of n
 * bytes (n <= bytes / 2) sent with fi_send into a receive posted before,
 * answered by the same from the peer, ops times. What Tern's network
 * active messages are compared with. */
double tb_raw_ofi_pingpong(tb_raw_ofi_t *r, size_t n, long ops);
/* The same where each receiver reads the n bytes it received
 * (tb_read_payload) before it answers: the baseline of rows whose
 * handlers read their payload. */
double tb_raw_ofi_pingpong_read(tb_raw_ofi_t *r, size_t n, long ops);
/* Rank 0 and the peer together: ns per round trip of an 8-byte
 * fi_inject_write answered by the same, each side polling the word in
 * memory (data word 0 of both buffers). No completion anywhere. */
double tb_raw_ofi_write_rtt(tb_raw_ofi_t *r, long ops, uint64_t base);
/* Rank 0 and the peer together: MB/s of a one-way stream of ops messages
 * of n bytes (n <= bytes / 2) from rank 0 with fi_send, in batches of
 * window: the peer posts window receives and answers each batch with a
 * 1-byte message, the flow control an application would need. What
 * Tern's network Medium flood is compared with. */
double tb_raw_ofi_stream(tb_raw_ofi_t *r, size_t n, long ops, int window);
/* Rank 0 and the peer together: ns per exchange of 4-byte flags, ops
 * times: each writes the exchange's number into the other's first word
 * with fi_inject_write (no completion, no acknowledgement) and reads its
 * completion queue (manual progress) until the other's number is in its
 * own first word. A 2-rank barrier on the bare provider: what the
 * network barrier is compared with. */
double tb_raw_ofi_flags(tb_raw_ofi_t *r, long ops);
/* Rank 0: ns per u64 fetch-add (fi_fetch_atomicmsg, FI_SUM, with
 * FI_DELIVERY_COMPLETE as Tern's atomics) on the peer's first registered
 * word, in windows of `window` waited to completion (1: latency), over
 * iters operations. 0 when the provider lacks the operation. */
double tb_raw_ofi_fadd(tb_raw_ofi_t *r, long iters, int window);
/* Rank 0: ends the peer's tb_raw_ofi_serve. */
void tb_raw_ofi_release(tb_raw_ofi_t *r);
/* Peer: drive its endpoint (manual progress) until rank 0 releases it. */
void tb_raw_ofi_serve(tb_raw_ofi_t *r);

#endif
