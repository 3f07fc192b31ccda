#include "harness/comm/rank_gather.h"

namespace iofab {

using nlohmann::json;

Status bad_rank_answer(size_t rank, std::string_view what, const Status& why) {
  return Status::Internal("rank " + std::to_string(rank) + " sent a bad " + std::string(what) + ": " +
                          why.message());
}

Status parse_rank_wire(size_t rank, const std::string& text, std::string_view what, json* out) {
  if (!wire_decode(text, out))
    return bad_rank_answer(rank, what, Status::Internal("not a wire value (MessagePack)"));
  return Status::Ok();
}

Status all_gather_texts(Comm& comm, const std::string& mine, std::vector<std::string>* texts) {
  texts->clear();
  std::vector<std::string> all;
  Status s = comm.gather(mine, &all, 0);
  if (!s.ok()) return s;
  // The table goes out as a JSON array of the texts as they came, so a malformed one reaches every
  // rank as it is and is reported alike everywhere.
  // Each as binary: a rank's wire value is bytes, not text.
  json entries = json::array();
  if (comm.rank() == 0) {
    for (std::string& a : all)
      entries.push_back(json::binary(json::binary_t::container_type(a.begin(), a.end())));
  }
  std::string table = comm.rank() == 0 ? wire_bytes(entries) : std::string();
  s = comm.broadcast(&table, 0);
  if (!s.ok()) return s;
  json t;
  if (!wire_decode(table, &t) || !t.is_array() || t.size() != static_cast<size_t>(comm.size())) {
    return Status::Internal("the table of every rank's answer arrived malformed");
  }
  for (const auto& x : t) {
    if (!x.is_binary()) return Status::Internal("the table of every rank's answer arrived malformed");
    texts->emplace_back(x.get_binary().begin(), x.get_binary().end());
  }
  return Status::Ok();
}

}  // namespace iofab
