// Typed gathers: values arrive in rank order as they were sent, on root only
// (gather_to_root) or on every rank (all_gather, broadcast_value); an answer
// that is not the type is an error naming the rank that sent it.
#include "harness/comm/rank_gather.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "comm_fakes.h"
#include "thread_comm.h"

namespace iofab {
namespace {

using nlohmann::json;

// A rank's answer of the kind phases send: figures, a list, and how it ended.
struct Answer {
  uint64_t bytes = 0;
  std::vector<std::string> notes;
  Status status;
};

json to_wire(const Answer& a) {
  return {{"bytes", a.bytes}, {"notes", iofab::to_wire(a.notes)}, {"status", iofab::to_wire(a.status)}};
}

Status from_wire(const json& j, Answer* out) {
  WireReader r(j);
  r.field("bytes", &out->bytes).field("notes", &out->notes).field("status", &out->status);
  return r.status();
}

Answer answer_of(int rank) {
  Answer a;
  a.bytes = 1000 + static_cast<uint64_t>(rank);
  a.notes.assign(static_cast<size_t>(rank), "note of rank " + std::to_string(rank));
  if (rank == 2) a.status = Status::IoError("rank 2's disk");
  return a;
}

TEST(GatherToRoot, RootGetsEveryRanksValueInRankOrderTheOthersNothing) {
  std::vector<std::vector<Answer>> got(4);
  std::vector<Status> st(4);
  testing::run_ranks(4, [&](Comm& comm) {
    const auto r = static_cast<size_t>(comm.rank());
    got[r].resize(1);  // cleared on ranks other than root
    st[r] = gather_to_root(comm, answer_of(comm.rank()), &got[r], 1);
  });
  for (const Status& s : st) EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(got[0].empty());
  EXPECT_TRUE(got[2].empty());
  EXPECT_TRUE(got[3].empty());
  ASSERT_EQ(got[1].size(), 4u);
  for (int r = 0; r < 4; ++r) {
    const Answer& a = got[1][static_cast<size_t>(r)];
    EXPECT_EQ(a.bytes, 1000u + static_cast<uint64_t>(r));
    EXPECT_EQ(a.notes, answer_of(r).notes);
    EXPECT_EQ(a.status.code(), r == 2 ? Status::Code::kIoError : Status::Code::kOk);
    EXPECT_EQ(a.status.message(), r == 2 ? "rank 2's disk" : "");
  }
}

TEST(GatherToRoot, AMalformedAnswerIsAnErrorNamingItsRankOnRoot) {
  for (const auto& [forged, why] :
       {std::pair{"[1, 2", "not a wire value (MessagePack)"},
        std::pair{R"({"bytes": -1, "notes": [], "status": {"code": 0, "message": ""}})",
                  "bytes: expected an integer >= 0, got number"},
        std::pair{R"({"bytes": 1, "notes": ["a", 2], "status": {"code": 0, "message": ""}})",
                  "notes[1]: expected a string, got number"},
        std::pair{R"({"bytes": 1, "notes": []})", "status: missing"}}) {
    std::vector<Status> st(3);
    std::vector<std::vector<Answer>> got(3);
    testing::run_ranks(3, [&](Comm& comm) {
      const auto r = static_cast<size_t>(comm.rank());
      if (r == 1) {
        testing::ForgingComm bad(comm, forged);
        st[r] = gather_to_root(bad, answer_of(1), &got[r]);
      } else {
        st[r] = gather_to_root(comm, answer_of(comm.rank()), &got[r]);
      }
    });
    EXPECT_EQ(st[0].code(), Status::Code::kInternal) << forged;
    EXPECT_EQ(st[0].message(), "rank 1 sent a bad result: " + std::string(why));
    EXPECT_TRUE(got[0].empty());
    EXPECT_TRUE(st[1].ok());
    EXPECT_TRUE(st[2].ok());
  }
}

TEST(GatherToRoot, ALostRankIsTheCommsFailure) {
  testing::LostPeerComm comm;
  std::vector<Answer> all(2);
  const Status s = gather_to_root(comm, answer_of(0), &all);
  EXPECT_EQ(s.message(), testing::LostPeerComm::kFailure);
  EXPECT_TRUE(all.empty());
}

TEST(GatherFoldToRoot, RootFoldsEveryRanksValueInRankOrderTheOthersNone) {
  std::vector<std::vector<std::pair<size_t, uint64_t>>> folded(3);
  std::vector<Status> st(3);
  testing::run_ranks(3, [&](Comm& comm) {
    const auto r = static_cast<size_t>(comm.rank());
    st[r] = gather_fold_to_root(comm, answer_of(comm.rank()), [&](size_t from, Answer&& a) {
      EXPECT_EQ(a.notes, answer_of(static_cast<int>(from)).notes);
      folded[r].emplace_back(from, a.bytes);
    });
  });
  for (const Status& s : st) EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(folded[0], (std::vector<std::pair<size_t, uint64_t>>{{0, 1000}, {1, 1001}, {2, 1002}}));
  EXPECT_TRUE(folded[1].empty());
  EXPECT_TRUE(folded[2].empty());
}

TEST(GatherFoldToRoot, AMalformedAnswerStopsTheFoldNamingItsRank) {
  std::vector<size_t> folded;
  Status root;
  testing::run_ranks(3, [&](Comm& comm) {
    if (comm.rank() == 1) {
      testing::ForgingComm bad(comm, R"({"bytes": 1, "notes": []})");
      gather_fold_to_root(bad, answer_of(1), [](size_t, Answer&&) {}).ignore_error();  // not root
    } else {
      Status s = gather_fold_to_root(comm, answer_of(comm.rank()),
                                     [&](size_t from, Answer&&) { folded.push_back(from); });
      if (comm.rank() == 0) root = s;
    }
  });
  EXPECT_EQ(root.message(), "rank 1 sent a bad result: status: missing");
  EXPECT_EQ(folded, std::vector<size_t>{0});
}

TEST(AllGather, EveryRankGetsEveryRanksValue) {
  std::vector<std::vector<std::string>> got(3);
  testing::run_ranks(3, [&](Comm& comm) {
    const auto r = static_cast<size_t>(comm.rank());
    // A host name need not be UTF-8: it travels as it is, alike to every rank (the report's writer
    // replaces such bytes, json_text).
    const std::string host = r == 1 ? std::string("bad\xff") : "host" + std::to_string(r);
    Status s = all_gather(comm, host, &got[r]);
    EXPECT_TRUE(s.ok()) << s.message();
  });
  const std::vector<std::string> want = {"host0", "bad\xff", "host2"};
  for (const auto& g : got) EXPECT_EQ(g, want);
}

TEST(AllGather, AMalformedAnswerFailsEveryRankAlike) {
  std::vector<Status> st(3);
  testing::run_ranks(3, [&](Comm& comm) {
    const auto r = static_cast<size_t>(comm.rank());
    std::vector<uint64_t> all;
    if (r == 2) {
      testing::ForgingComm bad(comm, "\"seven\"");
      st[r] = all_gather(bad, uint64_t{7}, &all);
    } else {
      st[r] = all_gather(comm, uint64_t{r}, &all);
    }
  });
  for (const Status& s : st)
    EXPECT_EQ(s.message(), "rank 2 sent a bad result: expected an integer >= 0, got string");
}

TEST(BroadcastValue, RootsValueReplacesEveryRanks) {
  std::vector<Answer> got(3);
  testing::run_ranks(3, [&](Comm& comm) {
    Answer a = answer_of(comm.rank());
    Status s = broadcast_value(comm, &a, 2);
    EXPECT_TRUE(s.ok()) << s.message();
    got[static_cast<size_t>(comm.rank())] = a;
  });
  for (const auto& a : got) {
    EXPECT_EQ(a.bytes, 1002u);
    EXPECT_EQ(a.notes.size(), 2u);
    EXPECT_EQ(a.status.message(), "rank 2's disk");
  }
}

}  // namespace
}  // namespace iofab
