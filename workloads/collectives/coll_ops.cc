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
CollOpInfo gather_op();
CollOpInfo scatter_op();
CollOpInfo sendrecv_op();

const std::vector<CollOpInfo>& coll_op_table() {
  static const std::vector<CollOpInfo> kTable = {
      all_reduce_op(), all_gather_op(), reduce_scatter_op(), broadcast_op(), all_to_all_op(),
      reduce_op(),     gather_op(),     scatter_op(),        sendrecv_op(),
  };
  return kTable;
}

size_t block_per_rank(size_t elements, int ranks, size_t elt_size) {
  const size_t per_line = elt_size > 0 && elt_size < 16 ? 16 / elt_size : 1;
  return (elements / static_cast<size_t>(ranks)) & ~(per_line - 1);
}

double split_bus_factor(int ranks) { return static_cast<double>(ranks - 1) / ranks; }

OpCounts gathered_counts(size_t elements, int ranks, size_t elt_size) {
  const size_t per = block_per_rank(elements, ranks, elt_size);
  return {per, per * ranks, per, per * ranks, per, 0};
}

OpCounts scattered_counts(size_t elements, int ranks, size_t elt_size) {
  const size_t per = block_per_rank(elements, ranks, elt_size);
  return {per * ranks, per, per, per * ranks, 0, per};
}

size_t in_place_extent(const OpCounts& c, int ranks) {
  const size_t last = static_cast<size_t>(std::max(ranks, 1) - 1);
  return std::max(c.send_in_place * last + c.send, c.recv_in_place * last + c.recv);
}

const CollOpInfo* find_coll_op(std::string_view name) {
  const auto& table = coll_op_table();
  const auto it =
      std::find_if(table.begin(), table.end(), [&](const CollOpInfo& info) { return info.name == name; });
  return it != table.end() ? &*it : nullptr;
}

}  // namespace iofab
