#include "driver/targets/object_store_suite.h"

#include "driver/suite/suite.h"
#include "workloads/phase_table.h"

namespace iofab {

namespace {

// "ingest, train_read, checkpoint, restore, collectives, rdma and metadata": the kinds whose table row says
// they run on an object store, in the table's order.
std::string object_store_kinds() {
  std::vector<std::string> names;
  for (const auto& k : phase_table()) {
    if (k.object_store) names.emplace_back(k.name);
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return out;
}

// The phases' object-store checks: kind, params, engine, O_DIRECT.
void check_phases(const Suite& suite, const ObjectStoreTarget& t, std::vector<std::string>* errors) {
  const std::string where(t.where);
  const std::string own(t.engine);
  for (const auto& p : suite.phases) {
    if (!p.kind->object_store) {
      errors->push_back("phase " + p.name + ": kind " + std::string(p.kind->name) +
                        " does not run on an object store yet; on " + where + " a suite holds " +
                        object_store_kinds() + " phases (docs/object-storage.md)");
      continue;
    }
    if (Status s = p.phase->check_on_object_store(); !s.ok())
      errors->push_back("phases." + p.name + "." + s.message());
    // A descriptor engine cannot reach an object.
    const auto engine = p.params.find("engine");
    if (engine != p.params.end() && engine->is_string() && *engine != "auto" && *engine != own) {
      errors->push_back("phases." + p.name + ".engine: \"" + engine->get<std::string>() +
                        "\" cannot reach an object store; expected \"auto\" or \"" + own + "\" on " + where);
    }
    const auto direct = p.params.find("direct");
    if (direct != p.params.end() && direct->is_boolean() && direct->get<bool>()) {
      errors->push_back("phase " + p.name +
                        ": direct: true, but an object store has no O_DIRECT; set direct: false for " +
                        where);
    }
  }
}

}  // namespace

void check_suite_on_object_store(const Suite& suite, const ObjectStoreTarget& target,
                                 std::vector<std::string>* errors) {
  if (!suite.groups.empty()) {
    // An object store's request figures are taken per store, not per phase: at once they would mix.
    errors->push_back("phases: concurrent group " + suite.groups.front().label + " on " +
                      std::string(target.where) +
                      "; phases run at once only on a folder target for now (docs/phases/concurrent.md)");
  }
  check_phases(suite, target, errors);
}

}  // namespace iofab
