// The measuring loops, one per role, on any RdmaEndpoint. They never block
// in the kernel: they spin on completions (and, for WRITE ping-pong on host
// memory, on the last byte of the incoming message, as perftest does), check
// the stop flag as they spin, and give up when nothing completes for
// spec.stall_s, naming the peer.
//
// Bandwidth (initiator): per queue pair, chains of cq_mod() work requests
// with the last one signaled, at most tx_depth outstanding, from the first
// post to the last completion; `iters` per queue pair, or as many as fit in
// `duration`. SENDs end with a SEND-with-immediate marker so the target knows
// the run is over without being told the count. The target of WRITE and READ
// does nothing (the CPU is not involved); of SEND it keeps receives posted.
//
// Latency (initiator, queue pair 0): WRITE and SEND ping-pong, half the
// round trip (ib_write_lat, ib_send_lat); READ the full round trip of one
// read (ib_read_lat). WRITE ping-pong on memory the CPU cannot read (CUDA)
// uses WRITE with immediate, so the arrival shows as a receive completion.
// `warmup` untimed round trips first.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "harness/rdma/fabric.h"
#include "harness/stats/histogram.h"
#include "workloads/rdma/rdma_spec.h"

namespace iofab {

// The immediate value that marks the last SEND of a bandwidth run.
inline constexpr uint32_t kLastSendImm = 0x1a57u;

struct BwMeasure {
  uint64_t bytes = 0;
  uint64_t messages = 0;
  double seconds = 0;
};

// peer: the other rank, for messages. Receives must already be posted on
// both sides (rx_depth per queue pair) before the first call.
Status bw_initiate(RdmaEndpoint& ep, RdmaTest test, uint64_t size, const RdmaSpec& spec, int peer,
                   const std::atomic<bool>& stop, BwMeasure* out);
// eps[i] talks to peers[i].
Status bw_serve(const std::vector<RdmaEndpoint*>& eps, const std::vector<int>& peers, RdmaTest test,
                const RdmaSpec& spec, const std::atomic<bool>& stop);

// Before the barrier that starts a latency size: clears the byte the WRITE
// ping-pong polls, so a stale one from an earlier size never reads as an arrival.
void lat_prepare(RdmaEndpoint& ep, uint64_t size, const RdmaSpec& spec);
// Records each round trip (READ) or half of it (WRITE, SEND), in ns, into *hist.
Status lat_initiate(RdmaEndpoint& ep, RdmaTest test, uint64_t size, const RdmaSpec& spec, int peer,
                    const std::atomic<bool>& stop, Histogram* hist);
// Answers every initiator's ping-pongs at once, round-robin.
Status lat_serve(const std::vector<RdmaEndpoint*>& eps, const std::vector<int>& peers, RdmaTest test,
                 uint64_t size, const RdmaSpec& spec, const std::atomic<bool>& stop);

}  // namespace iofab
