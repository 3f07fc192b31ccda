#include "workloads/rdma/rdma_run.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "harness/comm/agree.h"
#include "harness/comm/local_rank.h"
#include "harness/comm/rank_gather.h"
#include "harness/engines/io_driver.h"
#include "workloads/collectives/agreement.h"
#include "workloads/collectives/sweep.h"
#include "workloads/rdma/pairing.h"
#include "workloads/rdma/qp_exchange.h"
#include "workloads/rdma/rdma_loops.h"
#include "workloads/rdma/rdma_results.h"

namespace iofab {

using nlohmann::json;

namespace {

// The first error that is not Unavailable wins; else every Unavailable rank's reason, in one: the
// verdict is then Unavailable, its message the reason to skip.
Status skip_or_error_rule(const std::vector<Status>& by_rank) {
  std::vector<std::pair<size_t, std::string>> unavailable;
  for (size_t r = 0; r < by_rank.size(); ++r) {
    const Status& s = by_rank[r];
    if (s.code() == Status::Code::kUnavailable) {
      unavailable.emplace_back(r, s.message());
    } else if (!s.ok()) {
      return Status::IoError(by_rank.size() > 1 ? "rank " + std::to_string(r) + ": " + s.message()
                                                : s.message());
    }
  }
  if (unavailable.empty()) return Status::Ok();
  const bool same = std::all_of(unavailable.begin(), unavailable.end(),
                                [&](const auto& u) { return u.second == unavailable[0].second; });
  if (!same) {
    return Status::Unavailable("rank " + std::to_string(unavailable[0].first) + ": " + unavailable[0].second);
  }
  // Every rank says the same: the reason as is.
  if (unavailable.size() == by_rank.size()) return Status::Unavailable(unavailable[0].second);
  return Status::Unavailable(unavailable[0].second + " (on " + std::to_string(unavailable.size()) + " of " +
                             std::to_string(by_rank.size()) + " ranks, first rank " +
                             std::to_string(unavailable[0].first) + ")");
}

}  // namespace

Status agree_skip_or_error(Comm& comm, const Status& mine, std::string* skip) {
  skip->clear();
  Ballot verdict;
  Status s = agree(comm, Ballot{mine}, skip_or_error_rule, &verdict);
  if (!s.ok()) return s;
  const Status& v = verdict.status;
  if (v.code() == Status::Code::kUnavailable) {
    *skip = v.message();
    return Status::Ok();
  }
  if (v.ok()) return Status::Ok();
  // This rank's own error reads best in its own words.
  return mine.ok() || mine.code() == Status::Code::kUnavailable ? Status::IoError(v.message()) : mine;
}

namespace {

struct Connection {
  int peer = 0;
  std::unique_ptr<RdmaEndpoint> ep;
};

// Endpoints for this rank's links, receives posted; Unavailable when the memory cannot be had.
Status make_connections(RdmaFabric& fabric, const RdmaSpec& spec, const RdmaRole& role, int gpu,
                        std::vector<Connection>* out) {
  EndpointSpec es;
  es.qps = spec.qps;
  es.tx_depth = spec.tx_depth;
  es.rx_depth = spec.rx_depth;
  es.slot_bytes = spec.slot_bytes();
  es.memory = spec.memory;
  es.gpu = gpu;
  std::vector<int> peers;
  if (role.initiates) peers.push_back(role.initiates->target);
  for (const auto& l : role.serves) peers.push_back(l.initiator);
  for (int peer : peers) {
    Connection c;
    c.peer = peer;
    Status s = fabric.create_endpoint(es, &c.ep);
    for (int q = 0; q < spec.qps && s.ok(); ++q) s = c.ep->post_recv(q, spec.rx_depth);
    if (!s.ok()) return s;
    out->push_back(std::move(c));
  }
  return Status::Ok();
}

Status connect_all(Comm& comm, std::vector<Connection>& conns) {
  std::map<int, EndpointInfo> mine, theirs;
  for (const auto& c : conns) mine[c.peer] = c.ep->info();
  Status s = exchange_endpoints(comm, mine, &theirs);
  for (auto& c : conns) {
    if (s.ok()) s = c.ep->connect(theirs[c.peer]);
  }
  return s;
}

class Sweeper {
 public:
  Sweeper(const RdmaSpec& spec, Comm& comm, const RdmaRole& role, std::vector<Connection>& conns,
          const std::atomic<bool>& stop)
      : spec_(spec), comm_(comm), role_(role), stop_(stop) {
    for (size_t i = 0; i < conns.size(); ++i) {
      if (role.initiates && i == 0) {
        mine_ = &conns[i];
      } else {
        served_.push_back(conns[i].ep.get());
        peers_.push_back(conns[i].peer);
      }
    }
  }

  // Runs every test and size; samples of this rank's initiator go to *out.
  Status run(std::vector<RdmaSample>* out) {
    Status st;
    const auto sizes = sweep_sizes(spec_.min_bytes, spec_.max_bytes, spec_.factor);
    for (RdmaTest test : spec_.tests) {
      for (bool latency : {false, true}) {
        if ((latency && !spec_.latency) || (!latency && !spec_.bandwidth)) continue;
        for (uint64_t size : sizes) {
          if (latency) prepare_latency(size);
          // Everyone is ready (the poll bytes cleared) before anyone starts.
          st = agree_to_continue(comm_, st, stop_);
          if (!st.ok()) return st;
          st = step(test, latency, size, out);
        }
      }
    }
    return agree_to_continue(comm_, st, stop_);
  }

 private:
  void prepare_latency(uint64_t size) {
    if (mine_ != nullptr) lat_prepare(*mine_->ep, size, spec_);
    for (RdmaEndpoint* e : served_) lat_prepare(*e, size, spec_);
  }

  Status step(RdmaTest test, bool latency, uint64_t size, std::vector<RdmaSample>* out) {
    if (mine_ != nullptr) {
      RdmaSample s;
      s.test = test;
      s.latency = latency;
      s.size = size;
      s.link = *role_.initiates;
      Status st = latency ? lat_initiate(*mine_->ep, test, size, spec_, mine_->peer, stop_, &s.lat)
                          : bw_initiate(*mine_->ep, test, size, spec_, mine_->peer, stop_, &s.bw);
      if (!st.ok()) return st;
      out->push_back(std::move(s));
    }
    if (served_.empty()) return Status::Ok();
    return latency ? lat_serve(served_, peers_, test, size, spec_, stop_)
                   : bw_serve(served_, peers_, test, spec_, stop_);
  }

  const RdmaSpec& spec_;
  Comm& comm_;
  const RdmaRole& role_;
  const std::atomic<bool>& stop_;
  Connection* mine_ = nullptr;
  std::vector<RdmaEndpoint*> served_;
  std::vector<int> peers_;
};

// What a rank sends rank 0 at the end: its fabric, the samples of the link it initiates, how it ended.
struct RankSamples {
  json fabric = json::object();
  std::vector<RdmaSample> samples;
  Status status;
};

json to_wire(const RankSamples& r) {
  return {{"fabric", r.fabric}, {"samples", iofab::to_wire(r.samples)}, {"status", iofab::to_wire(r.status)}};
}

Status from_wire(const json& j, RankSamples* out) {
  WireReader r(j);
  r.field("fabric", &out->fabric).field("samples", &out->samples).field("status", &out->status);
  if (r.status().ok() && !out->fabric.is_object() && !out->fabric.is_null()) {
    return Status::Internal("fabric: expected an object");
  }
  return r.status();
}

json spec_details(const RdmaSpec& spec, int ranks) {
  json tests = json::array();
  for (RdmaTest t : spec.tests) tests.push_back(rdma_test_name(t));
  json links = json::array();
  for (const auto& l : rdma_links(spec.pattern, ranks)) links.push_back({l.initiator, l.target});
  return {{"tests", tests},
          {"pattern", rdma_pattern_name(spec.pattern)},
          {"links", links},
          {"memory", rdma_memory_name(spec.memory)},
          {"qps", spec.qps},
          {"tx_depth", spec.tx_depth},
          {"rx_depth", spec.rx_depth},
          {"cq_mod", spec.cq_mod()},
          {"iters", spec.iters},
          {"warmup", spec.warmup},
          {"duration_s", spec.duration_s},
          {"sizes", sweep_sizes(spec.min_bytes, spec.max_bytes, spec.factor)}};
}

}  // namespace

namespace {

// Rank 0: every rank's fabric and samples into result; returns st, else the first failed rank's error.
Status put_rdma_results(const RdmaSpec& spec, int ranks, size_t links, std::vector<RankSamples> all,
                        Status st, PhaseResult* result) {
  std::vector<RdmaSample> merged;
  json fabrics = json::array();
  Status worst = st;
  for (size_t r = 0; r < all.size(); ++r) {
    json f = std::move(all[r].fabric);
    f["rank"] = r;
    fabrics.push_back(std::move(f));
    const Status& rs = all[r].status;
    if (worst.ok() && !rs.ok() && !rs.message().empty()) {
      worst = Status::IoError("rank " + std::to_string(r) + ": " + rs.message());
    }
    for (auto& x : all[r].samples) merged.push_back(std::move(x));
  }
  result->details["spec"] = spec_details(spec, ranks);
  result->details["memory"] = rdma_memory_name(spec.memory);
  result->details["fabric"] = fabrics;
  result->metrics["links"] = static_cast<double>(links);
  for (auto& note : idle_rank_notes(spec.pattern, ranks)) result->warnings.push_back(std::move(note));
  add_rdma_results(merged, result);
  // How each ping-pong saw the answer: the CPU cannot spin on CUDA memory, so WRITE uses an immediate there.
  for (auto& l : result->details["latency"]) {
    const std::string t = l.value("test", "");
    l["method"] = t == "read"                        ? "RDMA READ, its completion"
                  : t == "send"                      ? "SEND, receive completion"
                  : spec.memory == RdmaMemory::kCuda ? "RDMA WRITE with immediate, receive completion"
                                                     : "RDMA WRITE, polling the last byte";
  }
  return worst;
}

}  // namespace

Status run_rdma(const RdmaSpec& spec, Comm& comm, const FabricOpener& open, const std::atomic<bool>& stop,
                PhaseResult* result) {
  const uint64_t start = now_ns();
  LocalRank local;
  Status st = find_local_rank(comm, &local);
  if (!st.ok()) return st;
  std::unique_ptr<RdmaFabric> fabric;
  std::string skip;
  st = agree_skip_or_error(comm, open(&fabric), &skip);
  if (!st.ok()) return st;
  if (!skip.empty()) {
    result->skip_reason = skip;
    return Status::Ok();
  }
  if (comm.size() < 2) {
    result->skip_reason = "needs >= 2 ranks";
    return Status::Ok();
  }

  const auto links = rdma_links(spec.pattern, comm.size());
  const RdmaRole role = rdma_role(links, comm.rank());
  std::vector<Connection> conns;
  st = agree_skip_or_error(comm, make_connections(*fabric, spec, role, local.rank, &conns), &skip);
  if (!st.ok()) return st;
  if (!skip.empty()) {
    result->skip_reason = skip;
    return Status::Ok();
  }
  st = agree_to_continue(comm, connect_all(comm, conns), stop);
  add_setup(result, start, now_ns());  // the device opened, memory registered, queue pairs connected

  std::vector<RdmaSample> samples;
  if (st.ok()) {
    Sweeper sweeper(spec, comm, role, conns, stop);
    st = sweeper.run(&samples);
  }
  conns.clear();  // endpoints go before their fabric

  std::vector<RankSamples> all;
  Status g = gather_to_root(comm, RankSamples{fabric->describe(), std::move(samples), st}, &all);
  if (!g.ok()) return g;
  if (comm.rank() != 0) return st;

  return put_rdma_results(spec, comm.size(), links.size(), std::move(all), st, result);
}

}  // namespace iofab
