// Endpoint information (queue pair numbers, PSNs, LID, GID, rkey, address)
// as JSON text, and its exchange over the control plane: every rank sends
// rank 0 what it exported for each peer, rank 0 sends the whole table back,
// and each rank keeps what its peers exported for it. One gather and one
// broadcast, whatever the number of links; no extra port to open.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/comm/comm.h"
#include "harness/rdma/fabric.h"

namespace iofab {

nlohmann::json endpoint_info_to_json(const EndpointInfo& info);
// False, with *error saying which field and what was expected, on anything
// but the form endpoint_info_to_json writes.
bool endpoint_info_from_json(const nlohmann::json& j, EndpointInfo* out, std::string* error);

// mine: peer rank -> this rank's endpoint for that peer. *theirs: peer rank
// -> that peer's endpoint for this rank. Collective: every rank calls it.
Status exchange_endpoints(Comm& comm, const std::map<int, EndpointInfo>& mine,
                          std::map<int, EndpointInfo>* theirs);

}  // namespace iofab
