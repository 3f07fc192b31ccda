// Typed gathers over the control plane: each rank's value travels in its
// wire form (wire.h) and is read back with checked access, so a malformed
// answer is an error naming the rank that sent it, never an exception.
//
// Like Comm's own calls, every rank must make the same calls in the same
// order; a failure of the Comm (a lost rank) comes back as the Comm's Status.
#pragma once

#include <string>
#include <vector>

#include "harness/comm/comm.h"
#include "harness/comm/wire.h"

namespace iofab {

// Reads the wire value that `rank` sent (wire_decode); "rank N sent a bad <what>: why" when it is not one.
Status parse_rank_wire(size_t rank, const std::string& text, std::string_view what, nlohmann::json* out);
// "rank N sent a bad <what>: <why>".
Status bad_rank_answer(size_t rank, std::string_view what, const Status& why);

// Every rank's text, in rank order, read as a T each. The first that is not
// gives "rank N sent a bad <what>: why" (and *bad = N when given), and *all is left empty.
template <typename T>
Status decode_ranks(const std::vector<std::string>& texts, std::vector<T>* all,
                    std::string_view what = "result", size_t* bad = nullptr) {
  all->clear();
  std::vector<T> v(texts.size());
  for (size_t r = 0; r < texts.size(); ++r) {
    nlohmann::json j;
    Status s = parse_rank_wire(r, texts[r], what, &j);
    if (s.ok()) {
      s = from_wire(j, &v[r]);
      if (!s.ok()) s = bad_rank_answer(r, what, s);
    }
    if (!s.ok()) {
      if (bad != nullptr) *bad = r;
      return s;
    }
  }
  *all = std::move(v);
  return Status::Ok();
}

// On root, *all receives every rank's value in rank order; elsewhere it is
// cleared. Fails with the Comm's failure, or on root alone with the first
// rank whose answer is not a T ("rank N sent a bad result: why"). Nothing
// follows on the other ranks, so that error is root's to report.
template <typename T>
Status gather_to_root(Comm& comm, const T& mine, std::vector<T>* all, int root = 0) {
  all->clear();
  std::vector<std::string> texts;
  Status s = comm.gather(wire_bytes(to_wire(mine)), &texts, root);
  if (!s.ok() || comm.rank() != root) return s;
  size_t bad = 0;
  s = decode_ranks(texts, all, "result", &bad);
  if (!s.ok()) comm.note_out_of_step(static_cast<int>(bad));
  return s;
}

// gather_to_root for a merge that needs one rank's value at a time: on root, each rank's value is
// decoded in rank order and handed to fold(rank, T&&), and its text is freed as soon as it is read,
// so root holds the texts still unread and one decoded value, never every rank's decoded value (a
// rank's IoTally holds a dense histogram of ~40 KiB: 700 MiB at 16,384 ranks; docs/scale.md).
// Elsewhere fold is not called. A malformed answer stops the fold there with "rank N sent a bad
// result: why", the ranks before it folded already: the caller drops what it folded.
template <typename T, typename Fold>
Status gather_fold_to_root(Comm& comm, const T& mine, Fold&& fold, int root = 0) {
  std::vector<std::string> texts;
  Status s = comm.gather(wire_bytes(to_wire(mine)), &texts, root);
  if (!s.ok() || comm.rank() != root) return s;
  for (size_t r = 0; r < texts.size(); ++r) {
    nlohmann::json j;
    s = parse_rank_wire(r, texts[r], "result", &j);
    if (!s.ok()) {
      comm.note_out_of_step(static_cast<int>(r));
      return s;
    }
    std::string().swap(texts[r]);
    // Value-initialized, as decode_ranks' vector is (a member's default constructor may be explicit).
    T v = T();
    s = from_wire(j, &v);
    if (!s.ok()) {
      comm.note_out_of_step(static_cast<int>(r));
      return bad_rank_answer(r, "result", s);
    }
    j = nullptr;
    fold(r, std::move(v));
  }
  return Status::Ok();
}

// Every rank's texts, from rank 0 to all: one gather and one broadcast.
// On every rank, *texts holds every rank's text in rank order.
Status all_gather_texts(Comm& comm, const std::string& mine, std::vector<std::string>* texts);

// Every rank receives every rank's value in rank order. A malformed answer
// fails on every rank alike ("rank N sent a bad result: why").
template <typename T>
Status all_gather(Comm& comm, const T& mine, std::vector<T>* all) {
  all->clear();
  std::vector<std::string> texts;
  Status s = all_gather_texts(comm, wire_bytes(to_wire(mine)), &texts);
  if (!s.ok()) return s;
  size_t bad = 0;
  s = decode_ranks(texts, all, "result", &bad);
  if (!s.ok()) comm.note_out_of_step(static_cast<int>(bad));
  return s;
}

// root's *value replaces every rank's (root's own too, read back from its
// wire form, so every rank ends with the same value or the same error).
template <typename T>
Status broadcast_value(Comm& comm, T* value, int root = 0, std::string_view what = "result") {
  std::string text = comm.rank() == root ? wire_bytes(to_wire(*value)) : std::string();
  Status s = comm.broadcast(&text, root);
  if (!s.ok()) return s;
  nlohmann::json j;
  s = parse_rank_wire(static_cast<size_t>(root), text, what, &j);
  T v{};
  if (s.ok()) {
    s = from_wire(j, &v);
    if (!s.ok()) s = bad_rank_answer(static_cast<size_t>(root), what, s);
  }
  if (!s.ok()) {
    comm.note_out_of_step(root);
    return s;
  }
  *value = std::move(v);
  return Status::Ok();
}

}  // namespace iofab
