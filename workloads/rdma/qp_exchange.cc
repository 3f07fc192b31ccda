#include "workloads/rdma/qp_exchange.h"

#include <vector>

#include "harness/comm/rank_gather.h"

namespace iofab {

using nlohmann::json;

json endpoint_info_to_json(const EndpointInfo& info) {
  json qps = json::array();
  for (const auto& q : info.qps) qps.push_back({{"qpn", q.qpn}, {"psn", q.psn}});
  return {{"lid", info.lid},   {"gid", info.gid},   {"gid_index", info.gid_index}, {"mtu", info.mtu},
          {"addr", info.addr}, {"rkey", info.rkey}, {"bytes", info.bytes},         {"qps", qps}};
}

namespace {

bool get_uint(const json& j, const char* key, uint64_t max, uint64_t* out, std::string* error) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_unsigned() || it->get<uint64_t>() > max) {
    *error = std::string(key) + ": expected an integer 0.." + std::to_string(max) +
             (it == j.end() ? ", missing" : ", got " + it->dump());
    return false;
  }
  *out = it->get<uint64_t>();
  return true;
}

}  // namespace

bool endpoint_info_from_json(const json& j, EndpointInfo* out, std::string* error) {
  if (!j.is_object()) {
    *error = "expected an object, got " + j.dump();
    return false;
  }
  EndpointInfo e;
  uint64_t v = 0;
  if (!get_uint(j, "lid", 0xffff, &v, error)) return false;
  e.lid = static_cast<uint32_t>(v);
  if (!get_uint(j, "mtu", 4096, &v, error)) return false;
  e.mtu = static_cast<uint32_t>(v);
  if (!get_uint(j, "rkey", 0xffffffffULL, &v, error)) return false;
  e.rkey = static_cast<uint32_t>(v);
  if (!get_uint(j, "addr", UINT64_MAX, &e.addr, error)) return false;
  if (!get_uint(j, "bytes", UINT64_MAX, &e.bytes, error)) return false;
  const auto gid = j.find("gid");
  if (gid == j.end() || !gid->is_string() ||
      !(gid->get<std::string>().empty() || gid->get<std::string>().size() == 39)) {
    *error = "gid: expected \"\" or 8 colon-separated groups of 4 hex digits";
    return false;
  }
  e.gid = gid->get<std::string>();
  const auto gi = j.find("gid_index");
  if (gi == j.end() || !gi->is_number_integer() || gi->get<int64_t>() < -1 || gi->get<int64_t>() > 255) {
    *error = "gid_index: expected an integer -1..255";
    return false;
  }
  e.gid_index = gi->get<int>();
  const auto qps = j.find("qps");
  if (qps == j.end() || !qps->is_array() || qps->empty()) {
    *error = "qps: expected a non-empty array of {qpn, psn}";
    return false;
  }
  for (const auto& q : *qps) {
    QpAddress a;
    if (!q.is_object() || !get_uint(q, "qpn", 0xffffff, &v, error)) {
      if (!q.is_object()) *error = "qps: expected objects {qpn, psn}";
      return false;
    }
    a.qpn = static_cast<uint32_t>(v);
    if (!get_uint(q, "psn", 0xffffff, &v, error)) return false;
    a.psn = static_cast<uint32_t>(v);
    e.qps.push_back(a);
  }
  *out = std::move(e);
  return true;
}

Status exchange_endpoints(Comm& comm, const std::map<int, EndpointInfo>& mine,
                          std::map<int, EndpointInfo>* theirs) {
  json mine_j = json::object();
  for (const auto& [peer, info] : mine) mine_j[std::to_string(peer)] = endpoint_info_to_json(info);
  std::vector<json> t;
  Status s = all_gather(comm, mine_j, &t);
  if (!s.ok()) return s;
  theirs->clear();
  const std::string me = std::to_string(comm.rank());
  for (const auto& [peer, info] : mine) {
    const json& from = t[static_cast<size_t>(peer)];
    if (!from.is_object() || !from.contains(me)) {
      return Status::Internal("rank " + std::to_string(peer) + " exported no endpoint for rank " + me);
    }
    std::string error;
    if (!endpoint_info_from_json(from[me], &(*theirs)[peer], &error)) {
      return Status::Internal("rank " + std::to_string(peer) + " sent a bad endpoint: " + error);
    }
  }
  return Status::Ok();
}

}  // namespace iofab
