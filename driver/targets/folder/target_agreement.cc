#include "driver/targets/folder/target_agreement.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <vector>

#include "harness/comm/rank_gather.h"
#include "harness/comm/rank_ranges.h"
#include "harness/core/json_text.h"

namespace iofab {
namespace {

constexpr const char* kTokenName = ".iofab-target-token";

Status write_token(int dir_fd, const std::string& token) {
  const int fd = openat(dir_fd, kTokenName, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return Status::FromErrno("write the target token", errno);
  const bool whole = write(fd, token.data(), token.size()) == static_cast<ssize_t>(token.size());
  const int e = errno;
  // A network filesystem shows a file to other clients once it is closed (close-to-open consistency).
  if (close(fd) != 0 || !whole) return Status::FromErrno("write the target token", whole ? errno : e);
  return Status::Ok();
}

std::string read_token(int dir_fd) {
  const int fd = openat(dir_fd, kTokenName, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return "";
  char buf[128] = {};
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

std::string this_hostname() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) return "?";
  return host;
}

}  // namespace

Status target_verdict(const std::string& target_path,
                      const std::vector<std::pair<std::string, bool>>& by_rank) {
  std::vector<int> blind;
  std::set<std::string> blind_hosts_seen;
  std::string blind_hosts;
  for (size_t r = 0; r < by_rank.size(); ++r) {
    if (by_rank[r].second) continue;
    blind.push_back(static_cast<int>(r));
    if (blind_hosts_seen.insert(by_rank[r].first).second) {
      blind_hosts += (blind_hosts.empty() ? "" : ", ") + by_rank[r].first;
    }
  }
  if (blind.empty()) return Status::Ok();
  const std::string host0 = by_rank.empty() ? "?" : by_rank[0].first;
  return Status::Invalid(
      "target " + target_path + " is not the same folder on every host: rank" +
      (blind.size() == 1 ? " " : "s ") + rank_ranges(blind) + " on host" +
      (blind_hosts_seen.size() == 1 ? " " : "s ") + blind_hosts +
      " do not see the file rank 0 wrote into the run folder on " + host0 +
      " (each host's own /tmp, a node-local disk, or a mount missing on a host). Use a folder on a "
      "filesystem "
      "every host mounts, or measure each host's own folder on purpose with target_scope: \"host\" in the "
      "suite (--set target_scope=host); nothing was measured");
}

Status agree_on_target(Comm& comm, RunDir& run_dir, const std::string& target_path, TargetScope scope) {
  if (comm.size() == 1 || scope == TargetScope::kHost || run_dir.fd() < 0) return Status::Ok();
  std::string token;
  Status wrote;
  if (comm.rank() == 0) {
    std::random_device rd;
    token = run_dir.path() + " " + std::to_string(rd()) + std::to_string(rd());
    wrote = write_token(run_dir.fd(), token);
  }
  // The broadcast comes after the write: every rank reads once the token is there.
  if (Status b = comm.broadcast(&token, 0); !b.ok()) return b;
  const bool sees = read_token(run_dir.fd()) == token;
  std::vector<std::string> answers;
  if (Status g = gather_to_root(comm, json_text(nlohmann::json{this_hostname(), sees}), &answers); !g.ok())
    return g;
  std::string verdict;
  if (comm.rank() == 0) {
    std::vector<std::pair<std::string, bool>> by_rank;
    for (const auto& a : answers) {
      const nlohmann::json j = nlohmann::json::parse(a, nullptr, false);
      const bool well_formed = j.is_array() && j.size() == 2 && j[0].is_string() && j[1].is_boolean();
      by_rank.emplace_back(well_formed ? j[0].get<std::string>() : "?", well_formed && j[1].get<bool>());
    }
    Status v = wrote.ok() ? target_verdict(target_path, by_rank)
                          : Status::Invalid("target " + target_path + ": " + wrote.message());
    verdict = v.ok() ? "" : v.message();
    unlinkat(run_dir.fd(), kTokenName, 0);  // every rank has read it: the gather is in
  }
  if (Status b = comm.broadcast(&verdict, 0); !b.ok()) return b;
  if (verdict.empty()) return Status::Ok();
  // Rank 0 removes its folder, and each rank that did not see it its host's own copy (several ranks of a
  // host may race to remove the same one: whoever is last removes the folder).
  if (comm.rank() == 0 || !sees) run_dir.remove().ignore_error();
  return Status::Invalid(verdict);
}

}  // namespace iofab
