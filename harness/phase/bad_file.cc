#include "harness/phase/bad_file.h"

#include "harness/comm/wire.h"

namespace iofab {

nlohmann::json to_wire(const BadFile& b) { return {{"name", b.name}, {"reason", b.reason}, {"io", b.io}}; }

Status from_wire(const nlohmann::json& j, BadFile* out) {
  WireReader r(j);
  r.field("name", &out->name).field("reason", &out->reason).field("io", &out->io);
  return r.status();
}

}  // namespace iofab
