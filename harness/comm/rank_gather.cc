#include "harness/comm/rank_gather.h"

namespace iofab {

using nlohmann::json;

Status bad_rank_answer(size_t rank, std::string_view what, const Status& why) {
  return Status::Internal("rank " + std::to_string(rank) + " sent a bad " + std::string(what) + ": " +
                          why.message());
}

Status parse_rank_text(size_t rank, const std::string& text, std::string_view what, json* out) {
  *out = json::parse(text, nullptr, false);
  if (out->is_discarded()) return bad_rank_answer(rank, what, Status::Internal("not JSON"));
  return Status::Ok();
}

Status all_gather_texts(Comm& comm, const std::string& mine, std::vector<std::string>* texts) {
  texts->clear();
  std::vector<std::string> all;
  Status s = comm.gather(mine, &all, 0);
  if (!s.ok()) return s;
  // The table goes out as a JSON array of the texts as they came, so a malformed one reaches every
  // rank as it is and is reported alike everywhere.
  std::string table = comm.rank() == 0 ? wire_text(json(all)) : std::string();
  s = comm.broadcast(&table, 0);
  if (!s.ok()) return s;
  const json t = json::parse(table, nullptr, false);
  if (!t.is_array() || t.size() != static_cast<size_t>(comm.size())) {
    return Status::Internal("the table of every rank's answer arrived malformed");
  }
  for (const auto& x : t) {
    if (!x.is_string()) return Status::Internal("the table of every rank's answer arrived malformed");
    texts->push_back(x.get<std::string>());
  }
  return Status::Ok();
}

}  // namespace iofab
