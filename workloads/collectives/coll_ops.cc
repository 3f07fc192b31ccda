// The op table: the one place that lists collectives. Each op's descriptor is
// in its own file under ops/.
#include "workloads/collectives/coll_ops.h"

#include <algorithm>

namespace iofab {

// Defined in ops/<name>.cc; this table is their only caller.
CollOpInfo all_reduce_op();
CollOpInfo all_gather_op();
CollOpInfo reduce_scatter_op();
CollOpInfo broadcast_op();
CollOpInfo all_to_all_op();
CollOpInfo reduce_op();

const std::vector<CollOpInfo>& coll_op_table() {
  static const std::vector<CollOpInfo> kTable = {
      all_reduce_op(), all_gather_op(), reduce_scatter_op(), broadcast_op(), all_to_all_op(), reduce_op(),
  };
  return kTable;
}

const CollOpInfo* find_coll_op(std::string_view name) {
  const auto& table = coll_op_table();
  const auto it =
      std::find_if(table.begin(), table.end(), [&](const CollOpInfo& info) { return info.name == name; });
  return it != table.end() ? &*it : nullptr;
}

}  // namespace iofab
