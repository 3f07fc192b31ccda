#include "workloads/rdma/pairing.h"

namespace iofab {

std::string_view rdma_test_name(RdmaTest t) {
  switch (t) {
    case RdmaTest::kWrite:
      return "write";
    case RdmaTest::kRead:
      return "read";
    case RdmaTest::kSend:
      return "send";
  }
  return "write";
}

std::optional<RdmaTest> parse_rdma_test(std::string_view name) {
  for (RdmaTest t : {RdmaTest::kWrite, RdmaTest::kRead, RdmaTest::kSend}) {
    if (rdma_test_name(t) == name) return t;
  }
  return std::nullopt;
}

std::string_view rdma_pattern_name(RdmaPattern p) {
  return p == RdmaPattern::kPairs ? "pairs" : "all_to_one";
}

std::vector<RdmaLink> rdma_links(RdmaPattern pattern, int ranks) {
  std::vector<RdmaLink> out;
  if (pattern == RdmaPattern::kPairs) {
    for (int r = 0; r + 1 < ranks; r += 2) out.push_back({r, r + 1});
  } else {
    for (int r = 1; r < ranks; ++r) out.push_back({r, 0});
  }
  return out;
}

RdmaRole rdma_role(const std::vector<RdmaLink>& links, int rank) {
  RdmaRole role;
  for (const auto& l : links) {
    if (l.initiator == rank) role.initiates = l;
    if (l.target == rank) role.serves.push_back(l);
  }
  return role;
}

std::vector<std::string> idle_rank_notes(RdmaPattern pattern, int ranks) {
  std::vector<std::string> out;
  const auto links = rdma_links(pattern, ranks);
  for (int r = 0; r < ranks; ++r) {
    if (rdma_role(links, r).idle()) {
      out.push_back("rank " + std::to_string(r) + " has no partner in pattern " +
                    std::string(rdma_pattern_name(pattern)) + " (" + std::to_string(ranks) +
                    " ranks): it idles");
    }
  }
  return out;
}

}  // namespace iofab
