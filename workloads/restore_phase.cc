#include "workloads/restore_phase.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "harness/core/units.h"
#include "harness/engines/cufile_engine.h"
#include "harness/engines/engine.h"
#include "harness/engines/engine_choice.h"
#include "harness/engines/in_order_reader.h"
#include "harness/engines/io_buffers.h"
#include "harness/fs/diskstats.h"
#include "harness/fs/page_cache.h"
#include "harness/fs/run_dir.h"
#include "harness/fs/target.h"
#include "harness/phase/params.h"
#include "harness/phase/worker_group.h"
#include "harness/stats/io_tally.h"
#include "workloads/checkpoint_budget.h"
#include "workloads/checkpoint_manifest.h"

namespace iofab {
namespace {

using nlohmann::json;

constexpr uint64_t kAlign = 4096;

struct RestoreParams {
  std::string engine = "auto";
  bool direct = false;
  unsigned workers = 1;
  unsigned fanout = kDefaultFanout;
  std::string checkpoint;  // an earlier checkpoint phase of this run
  std::string from;        // or a step-N/ folder (or a checkpoint phase's folder) elsewhere
  double restore_budget_s = 0;
  bool drop_cache = true;
  uint64_t block_size = 1ULL << 20;
  unsigned queue_depth = 16;
  uint64_t series_interval_ns = 100'000'000;
};

// One read of one shard by one reader.
struct Task {
  size_t shard = 0;
  bool skip = false;  // found missing or of the wrong size before reading
};

struct BadShard {
  std::string name;
  std::string reason;
  // The shard could not be read (EIO, EACCES): the run failed to measure, an error. Otherwise the
  // checkpoint itself is wrong (missing, wrong size, corrupt): a verification failure, the phase `failed`.
  bool io = false;
};

struct Reader {
  std::unique_ptr<Engine> engine;
  IoBuffers ring;
  std::vector<Task> tasks;
  IoTally tally;
  uint64_t verify_ns = 0;
  uint64_t verified_bytes = 0;
  uint64_t checked_bytes = 0;   // bytes whose residency was measured
  uint64_t resident_bytes = 0;  // of those, in the page cache after the drop
  std::string drop_problem;
  std::vector<BadShard> bad;
};

// Where the checkpoint is, as rank 0 found it; sent to every rank.
struct Source {
  std::string error;
  bool external = false;  // `from`: an absolute path outside the run folder
  std::string dir;        // external: absolute path of step-N/; else "<phase>/step-N" under the run folder
  std::string manifest;   // its manifest, validated, as JSON text
};

Status status_from(int code, const std::string& msg) {
  return Status::FromCode(static_cast<Status::Code>(code), msg);
}

double finite_or_zero(double v) { return std::isfinite(v) ? v : 0; }

int open_dir(int parent, const std::string& name) {
  return openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

// The newest committed step under a checkpoint phase's folder fd.
Status newest_step(int dirfd, const std::string& where, uint64_t* step) {
  StepListing steps;
  Status s = list_steps_at(dirfd, &steps);
  if (!s.ok()) return Status::IoError(where + ": " + s.message());
  if (steps.committed.empty()) {
    return Status::IoError(
        where + " holds no committed checkpoint (no step-N/ folder" +
        (steps.tmp.empty() ? "" : "; only " + steps.tmp.back() + ", which never committed") + ")");
  }
  *step = steps.committed.back();
  return Status::Ok();
}

Source resolve_source(const RestoreParams& p, const PhaseContext& ctx) {
  Source src;
  Manifest m;
  Status s;
  if (!p.from.empty()) {
    src.external = true;
    const int fd = open(p.from.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
      src.error = Status::FromErrno("from: cannot open " + p.from, errno).message();
      return src;
    }
    s = read_manifest_at(fd, p.from, &m);
    src.dir = p.from;
    if (!s.ok() && faccessat(fd, std::string(kManifestName).c_str(), F_OK, AT_SYMLINK_NOFOLLOW) != 0) {
      // A checkpoint phase's folder: take its newest step.
      uint64_t step = 0;
      s = newest_step(fd, "from: " + p.from, &step);
      if (s.ok()) {
        src.dir = p.from + "/" + step_dir_name(step);
        const int sfd = open_dir(fd, step_dir_name(step));
        s = sfd < 0 ? Status::FromErrno("open " + src.dir, errno) : read_manifest_at(sfd, src.dir, &m);
        if (sfd >= 0) close(sfd);
      }
    }
    close(fd);
  } else {
    std::string phase = p.checkpoint;
    if (phase.empty()) {
      // The nearest earlier checkpoint phase is the one that committed last (by the manifest's commit time,
      // else its mtime). A broken manifest still counts, so that its error shows.
      int64_t newest = -1;
      // A fresh open of the folder: a dup() would share, and move, the run folder fd's read position.
      const int lfd = openat(ctx.run_dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      DIR* d = lfd < 0 ? nullptr : fdopendir(lfd);
      if (d == nullptr) {
        src.error = Status::FromErrno("open run folder", errno).message();
        if (lfd >= 0) close(lfd);
        return src;
      }
      std::vector<std::string> names;
      while (dirent* e = readdir(d)) {
        std::string n(e->d_name);
        if (n != "." && n != ".." && n != ctx.phase_name) names.push_back(n);
      }
      closedir(d);
      for (const auto& n : names) {
        const int pfd = open_dir(ctx.run_dir_fd, n);
        if (pfd < 0) continue;
        uint64_t step = 0;
        if (newest_step(pfd, n, &step).ok()) {
          struct stat st {};
          const std::string step_name = step_dir_name(step);
          const std::string manifest = step_name + "/" + std::string(kManifestName);
          if (fstatat(pfd, manifest.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 ||
              fstatat(pfd, step_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
            int64_t t = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
            // The commit time in the manifest is finer than a filesystem's mtime, when it can be read.
            const int sfd = open_dir(pfd, step_name);
            Manifest cand;
            if (sfd >= 0 && read_manifest_at(sfd, n, &cand).ok() && cand.committed_unix_ns > 0) {
              t = static_cast<int64_t>(cand.committed_unix_ns);
            }
            if (sfd >= 0) close(sfd);
            if (t >= newest) {
              newest = t;
              phase = n;
            }
          }
        }
        close(pfd);
      }
      if (phase.empty()) {
        src.error =
            "no checkpoint to restore: no earlier checkpoint phase of this run left a committed step-N/ "
            "(put a checkpoint phase before this one, name it with `checkpoint`, or give `from`)";
        return src;
      }
    }
    const int pfd = open_dir(ctx.run_dir_fd, phase);
    if (pfd < 0) {
      src.error = "checkpoint: no folder for phase \"" + phase + "\" in this run (" +
                  Status::FromErrno("open", errno).message() +
                  "): is it a checkpoint phase that runs before " + ctx.phase_name + "?";
      return src;
    }
    uint64_t step = 0;
    s = newest_step(pfd, "checkpoint phase \"" + phase + "\"", &step);
    if (s.ok()) {
      src.dir = phase + "/" + step_dir_name(step);
      const int sfd = open_dir(pfd, step_dir_name(step));
      s = sfd < 0 ? Status::FromErrno("open " + src.dir, errno) : read_manifest_at(sfd, src.dir, &m);
      if (sfd >= 0) close(sfd);
    }
    close(pfd);
  }
  if (!s.ok()) {
    src.error = s.message();
    return src;
  }
  src.manifest = manifest_to_json_text(m);
  return src;
}

class RestorePhase final : public Phase {
 public:
  explicit RestorePhase(RestoreParams p) : p_(std::move(p)) {}

  std::optional<uint64_t> planned_bytes(int) const override { return 0; }  // reads only
  Status run(PhaseContext& ctx, PhaseResult* result) override;

 private:
  Status setup(Reader* rd, int step_fd, const Manifest& m) const;
  Status body(Reader* rd, int step_fd, const Manifest& m, uint64_t t0, const PhaseContext& ctx) const;

  RestoreParams p_;
};

Status RestorePhase::setup(Reader* rd, int step_fd, const Manifest& m) const {
  for (auto& t : rd->tasks) {
    const ShardEntry& e = m.shards[t.shard];
    int fd = -1;
    Status s = open_file_at(step_fd, e.name, O_RDONLY, &fd);
    if (!s.ok()) {
      t.skip = true;
      const bool missing = s.message().find("No such file") != std::string::npos;
      rd->bad.push_back({e.name, missing ? "missing (" + s.message() + ")" : s.message(), !missing});
      continue;
    }
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      t.skip = true;
      rd->bad.push_back({e.name, "not a regular file"});
    } else if (static_cast<uint64_t>(st.st_size) != e.bytes) {
      t.skip = true;
      rd->bad.push_back({e.name, (static_cast<uint64_t>(st.st_size) < e.bytes ? "short: " : "too long: ") +
                                     std::to_string(st.st_size) + " bytes, the manifest says " +
                                     std::to_string(e.bytes)});
    } else if (p_.direct && e.bytes % kAlign != 0) {
      t.skip = true;
      rd->bad.push_back({e.name,
                         "size " + std::to_string(e.bytes) +
                             " is not a multiple of 4 KiB, which O_DIRECT needs: set direct: false",
                         true});
    } else if (!p_.direct && p_.drop_cache) {
      // Cold cache: what a restarted job on a fresh node would meet.
      Status d = drop_cached_pages(fd);
      if (!d.ok() && rd->drop_problem.empty()) rd->drop_problem = e.name + ": " + d.message();
      uint64_t resident = 0;
      if (resident_bytes(fd, e.bytes, &resident).ok()) {
        rd->checked_bytes += e.bytes;
        rd->resident_bytes += resident;
      }
    }
    close(fd);
  }
  EngineOptions eo;
  eo.queue_depth = p_.queue_depth;
  eo.direct = p_.direct;
  eo.max_files = 2;  // one shard at a time
  Status s = make_engine(resolve_engine_name(p_.engine), eo, &rd->engine);
  if (!s.ok()) return s;
  // Twice the queue depth: blocks that complete early wait in the ring for a late one without
  // lowering the reads in flight (verification needs them in order).
  s = IoBuffers::allocate(2 * static_cast<size_t>(p_.queue_depth), p_.block_size, &rd->ring);
  if (!s.ok()) return s;
  return rd->engine->register_buffers(rd->ring.iovecs());
}

Status RestorePhase::body(Reader* rd, int step_fd, const Manifest& m, uint64_t t0,
                          const PhaseContext& ctx) const {
  const uint64_t start = now_ns();
  const bool verify = rd->engine->caps().moves_data;
  InOrderReader reader(*rd->engine, rd->ring, p_.queue_depth, true, &rd->tally.latency, &rd->tally.series, t0,
                       &ctx.progress.done_bytes, &ctx.stop);
  Status result;
  for (const auto& t : rd->tasks) {
    if (t.skip) continue;
    const ShardEntry& e = m.shards[t.shard];
    int fd = -1;
    Status s = open_file_at(step_fd, e.name, O_RDONLY | (p_.direct ? O_DIRECT : 0), &fd);
    if (!s.ok()) {
      if (p_.direct && s.message().find("Invalid argument") != std::string::npos) {
        return Status::IoError(s.message() +
                               " (this filesystem does not support O_DIRECT; set direct: false)");
      }
      rd->bad.push_back({e.name, s.message(), true});
      continue;
    }
    int handle = -1;
    s = rd->engine->add_file(fd, &handle);
    if (!s.ok()) {
      close(fd);
      return s;
    }
    StreamingXxh3 hash;
    s = reader.read(handle, e.bytes, static_cast<uint32_t>(p_.block_size),
                    [&](const void* data, uint32_t len, uint64_t) {
                      if (!verify) return;
                      const uint64_t h0 = now_ns();
                      hash.update(data, len);
                      rd->verify_ns += now_ns() - h0;
                      rd->verified_bytes += len;
                    });
    rd->engine->remove_file(handle);
    close(fd);
    if (s.code() == Status::Code::kInterrupted) {
      result = s;
      break;
    }
    if (!s.ok()) {
      rd->bad.push_back({e.name, "read failed: " + s.message(), true});
      continue;
    }
    if (verify && hash.digest() != e.xxh3) {
      rd->bad.push_back(
          {e.name, "corrupt: xxh3 " + xxh3_hex(hash.digest()) + ", the manifest says " + xxh3_hex(e.xxh3)});
    }
  }
  rd->tally.bytes = reader.stats().bytes;
  rd->tally.ios = reader.stats().ios;
  rd->tally.span(start - t0, now_ns() - t0);
  return result;
}

Status RestorePhase::run(PhaseContext& ctx, PhaseResult* result) {
  const int rank = ctx.comm.rank();
  const int ranks = ctx.comm.size();

  // Rank 0 finds the checkpoint and its manifest; every rank reads the same one.
  std::string msg;
  if (rank == 0) {
    Source src = resolve_source(p_, ctx);
    msg =
        json({{"error", src.error}, {"external", src.external}, {"dir", src.dir}, {"manifest", src.manifest}})
            .dump();
  }
  Status st = ctx.comm.broadcast(&msg, 0);
  json src = json::parse(msg, nullptr, false);
  if (st.ok() && (src.is_discarded() || !src.is_object()))
    st = Status::Internal("bad checkpoint location from rank 0");
  Manifest m;
  if (st.ok() && !src["error"].get<std::string>().empty())
    st = Status::IoError(src["error"].get<std::string>());
  if (st.ok()) st = parse_manifest(src["manifest"].get<std::string>(), &m);
  const bool external = st.ok() && src["external"].get<bool>();
  const std::string dir = st.ok() ? src["dir"].get<std::string>() : "";

  int step_fd = -1;
  if (st.ok()) {
    if (external) {
      step_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    } else {
      const auto slash = dir.find('/');
      const int pfd = open_dir(ctx.run_dir_fd, dir.substr(0, slash));
      step_fd = pfd < 0 ? -1 : open_dir(pfd, dir.substr(slash + 1));
      if (pfd >= 0) close(pfd);
    }
    if (step_fd < 0) st = Status::FromErrno("open checkpoint " + dir, errno);
  }

  // Shard s's f-th read goes to reader (s * fanout + f) mod (ranks x workers); reader g is rank g % ranks,
  // worker g / ranks, so the replicas of one shard land on different ranks when there are enough.
  const uint64_t readers = static_cast<uint64_t>(ranks) * p_.workers;
  std::vector<Reader> rds(p_.workers);
  uint64_t my_bytes = 0;
  for (auto& rd : rds) rd.tally = IoTally(p_.series_interval_ns);
  if (st.ok()) {
    for (size_t s = 0; s < m.shards.size(); ++s) {
      for (uint64_t f = 0; f < p_.fanout; ++f) {
        const uint64_t g = (s * p_.fanout + f) % readers;
        if (static_cast<int>(g % static_cast<uint64_t>(ranks)) != rank) continue;
        rds[g / static_cast<uint64_t>(ranks)].tasks.push_back({s, false});
        my_bytes += m.shards[s].bytes;
      }
    }
  }
  ctx.progress.total_bytes.store(my_bytes);

  // Device counters: the bytes the disk really read, beside the bytes asked for.
  std::string block_device = ctx.target.block_device;
  if (external) {
    TargetInfo info;
    block_device = describe_target(dir, &info).ok() ? info.block_device : "";
  }
  std::optional<DiskCounters> before;
  if (!block_device.empty()) before = read_disk_counters(block_device);

  WorkerRun run;
  Status barrier = run_workers(
      ctx.comm, p_.workers, [&](unsigned w) { return st.ok() ? setup(&rds[w], step_fd, m) : st; },
      [&](unsigned w, uint64_t t0) { return body(&rds[w], step_fd, m, t0, ctx); }, &run);
  Status local = st.ok() ? (barrier.ok() ? run.first_error() : barrier) : st;

  std::optional<DiskCounters> after;
  if (before) after = read_disk_counters(block_device);
  for (auto& rd : rds) rd.engine.reset();
  if (step_fd >= 0) close(step_fd);

  IoTally mine(p_.series_interval_ns);
  uint64_t verify_ns = 0, verified = 0, checked = 0, resident = 0;
  json bad = json::array();
  std::string drop_problem;
  for (auto& rd : rds) {
    mine.merge(rd.tally);
    verify_ns += rd.verify_ns;
    verified += rd.verified_bytes;
    checked += rd.checked_bytes;
    resident += rd.resident_bytes;
    if (drop_problem.empty()) drop_problem = rd.drop_problem;
    for (const auto& b : rd.bad) bad.push_back({{"name", b.name}, {"reason", b.reason}, {"io", b.io}});
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  json local_result = {
      {"rank", rank},
      {"host", host},
      {"tally", mine.to_json()},
      {"verify_ns", verify_ns},
      {"verified_bytes", verified},
      {"checked_bytes", checked},
      {"resident_bytes", resident},
      {"drop_problem", drop_problem},
      {"bad", bad},
      {"device_read_bytes", after && before ? json((*after - *before).read_bytes) : json(nullptr)},
      {"error", local.ok() ? "" : local.message()},
      {"code", static_cast<int>(local.code())}};
  std::vector<std::string> all;
  Status g = ctx.comm.gather(local_result.dump(), &all, 0);
  if (!g.ok()) return g;
  if (rank != 0) return local;

  Status worst = local;
  IoTally total(p_.series_interval_ns);
  json per_rank = json::array();
  std::map<std::string, std::string> bad_shards;  // name -> first reason
  bool unreadable = false;                        // a shard could not be read: an error, not a verdict
  std::set<std::string> hosts_counted;
  double device_bytes = 0;
  bool have_device = false;
  uint64_t verify_ns_all = 0, verified_all = 0, checked_all = 0, resident_all = 0;
  for (size_t r = 0; r < all.size(); ++r) {
    json j = json::parse(all[r], nullptr, false);
    IoTally t(p_.series_interval_ns);
    if (j.is_discarded() || !t.from_json(j["tally"]))
      return Status::Internal("rank " + std::to_string(r) + " sent a bad result");
    total.merge(t);
    verify_ns_all += j["verify_ns"].get<uint64_t>();
    verified_all += j["verified_bytes"].get<uint64_t>();
    checked_all += j["checked_bytes"].get<uint64_t>();
    resident_all += j["resident_bytes"].get<uint64_t>();
    if (drop_problem.empty()) drop_problem = j["drop_problem"].get<std::string>();
    per_rank.push_back({{"rank", r},
                        {"bytes", t.bytes},
                        {"seconds", t.seconds()},
                        {"bytes_per_s", t.bytes_per_s()},
                        {"error", j["error"]}});
    if (!j["error"].get<std::string>().empty() && r != 0) {
      keep_worst(&worst, status_from(j["code"].get<int>(),
                                     "rank " + std::to_string(r) + ": " + j["error"].get<std::string>()));
    }
    for (const auto& b : j["bad"]) {
      bad_shards.emplace(b["name"].get<std::string>(), b["reason"].get<std::string>());
      unreadable = unreadable || b["io"].get<bool>();
    }
    // One figure per host: ranks on one host share its disk counters.
    if (!j["device_read_bytes"].is_null() && hosts_counted.insert(j["host"].get<std::string>()).second) {
      device_bytes += j["device_read_bytes"].get<double>();
      have_device = true;
    }
  }

  const double ckpt_bytes = static_cast<double>(m.total_bytes());
  const double restore_s = total.seconds();
  const double read_bps = total.bytes_per_s();
  const double full_read = restore_read_bytes(m.full_bytes(), p_.fanout);
  auto& mt = result->metrics;
  mt["read_bytes"] = static_cast<double>(total.bytes);
  mt["restore_seconds"] = restore_s;
  mt["read_bytes_per_s"] = read_bps;
  mt["read_write_ratio"] = ckpt_bytes > 0 ? static_cast<double>(total.bytes) / ckpt_bytes : 0.0;
  mt["verify_bytes_per_s"] =
      verify_ns_all > 0 ? static_cast<double>(verified_all) / (verify_ns_all * 1e-9) : 0.0;
  mt["verified_bytes"] = static_cast<double>(verified_all);
  mt["corrupt_shards"] = static_cast<double>(bad_shards.size());
  mt["checkpoint_bytes"] = ckpt_bytes;
  mt["shards"] = static_cast<double>(m.shards.size());
  mt["full_read_bytes"] = full_read;
  mt["projected_restore_seconds"] = finite_or_zero(projected_seconds(full_read, read_bps));
  mt["latency_p50_s"] = total.latency.percentile(0.50) * 1e-9;
  mt["latency_p99_s"] = total.latency.percentile(0.99) * 1e-9;
  mt["latency_max_s"] = total.latency.max() * 1e-9;
  if (!p_.direct) {
    mt["cache_resident_fraction"] =
        checked_all > 0 ? static_cast<double>(resident_all) / static_cast<double>(checked_all) : 0.0;
  }
  if (have_device) mt["device_read_bytes"] = device_bytes;
  if (p_.restore_budget_s > 0) {
    const BudgetVerdict v =
        evaluate_budget(p_.restore_budget_s, restore_s, static_cast<double>(total.bytes), full_read);
    mt["allowed_restore_seconds"] = v.allowed_seconds;
    mt["required_read_bytes_per_s"] = finite_or_zero(v.required_bytes_per_s);
    mt["restore_budget_margin"] = finite_or_zero(v.margin);
    json b = to_json(v);
    b["assumption"] =
        "projected restore = fanout x full-size checkpoint bytes / the read bytes/s measured here: "
        "it assumes that bandwidth holds at full scale";
    result->details["restore_budget"] = b;
  }
  result->details["checkpoint"] = {{"folder", external ? dir : ctx.run_dir_path + "/" + dir},
                                   {"from_another_run", external},
                                   {"step", m.step},
                                   {"written_by_phase", m.phase},
                                   {"created", m.created},
                                   {"shards", m.shards.size()},
                                   {"bytes", m.total_bytes()},
                                   {"full_checkpoint_bytes", m.full_bytes()},
                                   {"scale", m.scale}};
  result->details["fanout"] = p_.fanout;
  result->details["readers"] = readers;
  result->details["verify_seconds"] = verify_ns_all * 1e-9;
  json bad_list = json::array();
  for (const auto& [name, reason] : bad_shards) bad_list.push_back({{"name", name}, {"reason", reason}});
  result->details["bad_shards"] = bad_list;
  result->details["latency"] = latency_summary_json(total.latency);
  result->details["latency_histogram"] = total.latency.to_json();
  result->details["series"] = total.series.to_json();
  result->details["per_rank"] = per_rank;
  result->details["engine"] = resolve_engine_name(p_.engine);
  if (result->details["engine"] == "cufile") result->details["engine_mode"] = cufile_mode_text();
  if (!p_.direct) {
    result->warnings.push_back(
        "buffered reads (direct: false): readers of one shard on one host share the page "
        "cache, so only the first read of each shard there comes from storage");
    if (!p_.drop_cache) {
      result->warnings.push_back(
          "drop_cache: false: cached pages of the checkpoint were kept; the restore may be warm");
    } else if (!drop_problem.empty()) {
      result->warnings.push_back("could not drop cached pages (" + drop_problem +
                                 "): the restore may be partly warm");
    }
    if (checked_all > 0 && resident_all > checked_all / 100) {
      result->warnings.push_back(
          units::format_bytes(static_cast<double>(resident_all)) + " of " +
          units::format_bytes(static_cast<double>(checked_all)) +
          " stayed in the page cache after dropping it: restore figures partly measure memory");
    }
  }
  if (resolve_engine_name(p_.engine) == "null") {
    result->warnings.push_back("engine null moves no data: nothing was verified");
  }
  if (!bad_shards.empty() && worst.code() != Status::Code::kInterrupted) {
    std::string text = "restore failed verification: " + std::to_string(bad_shards.size()) + " of " +
                       std::to_string(m.shards.size()) + " shards bad:";
    size_t n = 0;
    for (const auto& [name, reason] : bad_shards) {
      if (n++ == 8) {
        text += " ... (" + std::to_string(bad_shards.size() - 8) + " more in details.bad_shards)";
        break;
      }
      text += " " + name + ": " + reason + ";";
    }
    if (text.back() == ';') text.pop_back();
    // A checkpoint that reads back wrong is what the phase is there to catch: a failed phase with its
    // metrics (corrupt_shards) and checks, exit 1. Only a shard it could not read makes it an error.
    if (worst.ok() && !unreadable)
      result->failure = text;
    else if (worst.ok())
      worst = Status::IoError(text);
    else
      worst = Status::IoError(worst.message() + "; " + text);
  }
  return worst;
}

}  // namespace

std::unique_ptr<Phase> parse_restore(ParamReader& r) {
  RestoreParams p;
  p.engine = r.choice("engine", "auto", {"auto", "psync", "io_uring", "cufile", "null"});
  p.direct = r.boolean("direct", false);
  p.workers = static_cast<unsigned>(r.integer("workers", 1, 1, 1024));
  p.fanout = static_cast<unsigned>(r.integer("fanout", kDefaultFanout, 1, kMaxFanout));
  p.checkpoint = r.string("checkpoint", "");
  p.from = r.string("from", "");
  p.restore_budget_s = r.duration("restore_budget", 0, 0, kMaxIntervalSeconds);
  p.drop_cache = r.boolean("drop_cache", true);
  p.block_size = r.size("block_size", 1ULL << 20, 512, 256ULL << 20);
  p.queue_depth = static_cast<unsigned>(r.integer("queue_depth", 16, 1, 4096));
  p.series_interval_ns = static_cast<uint64_t>(r.duration("series_interval", 0.1, 0.001, 3600) * 1e9);
  if (!p.checkpoint.empty() && !p.from.empty()) {
    r.fail("from", "give either checkpoint (a checkpoint phase of this run) or from (a folder), not both");
  }
  if (!p.from.empty() && p.from.front() != '/') {
    r.fail("from",
           "expected an absolute folder path like \"/data/iofab-20260101T000000Z-abc123/checkpoint/step-3\"");
  }
  for (char c : p.checkpoint) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) {
      r.fail("checkpoint", "expected the name of a checkpoint phase (letters, digits, '_' and '-')");
      break;
    }
  }
  if (p.direct && p.block_size % kAlign != 0) {
    r.fail("block_size", "must be a multiple of 4KiB when direct is true (O_DIRECT alignment)");
  }
  return std::make_unique<RestorePhase>(std::move(p));
}

const std::vector<MetricInfo>& restore_metrics() {
  static const std::vector<MetricInfo> kMetrics = {
      {"read_bytes_per_s", Unit::kBytesPerSecond, Better::kHigher,
       "aggregate: bytes read / (last end - first start)"},
      {"restore_seconds", Unit::kSeconds, Better::kLower,
       "first read's start to last reader's end, verification included"},
      {"read_write_ratio", Unit::kRatio, Better::kNeither,
       "bytes read / checkpoint bytes (fanout when every shard is read)"},
      {"corrupt_shards", Unit::kCount, Better::kLower,
       "shards missing, of the wrong size, unreadable or failing xxh3"},
      {"read_bytes", Unit::kBytes, Better::kNeither, "bytes read by all ranks"},
      {"verify_bytes_per_s", Unit::kBytesPerSecond, Better::kHigher,
       "xxh3 bytes hashed per second of hashing, per core"},
      {"verified_bytes", Unit::kBytes, Better::kNeither, "bytes checked against the manifest"},
      {"checkpoint_bytes", Unit::kBytes, Better::kNeither, "bytes of the checkpoint (the manifest's shards)"},
      {"shards", Unit::kCount, Better::kNeither, "shard files in the checkpoint"},
      {"full_read_bytes", Unit::kBytes, Better::kNeither, "fanout x full-size checkpoint bytes"},
      {"projected_restore_seconds", Unit::kSeconds, Better::kLower, "full_read_bytes / read_bytes_per_s"},
      {"allowed_restore_seconds", Unit::kSeconds, Better::kNeither, "restore_budget (when set)"},
      {"required_read_bytes_per_s", Unit::kBytesPerSecond, Better::kNeither,
       "full_read_bytes / restore_budget (when set)"},
      {"restore_budget_margin", Unit::kRatio, Better::kHigher,
       "restore_budget / projected restore seconds (when set); >= 1 passes"},
      {"cache_resident_fraction", Unit::kFraction, Better::kLower,
       "buffered reads: fraction of the checkpoint in the page cache after dropping it, before reading"},
      {"device_read_bytes", Unit::kBytes, Better::kNeither,
       "bytes the block device read (/proc/diskstats), per host"},
      {"latency_p50_s", Unit::kSeconds, Better::kLower, "per-read latency, median"},
      {"latency_p99_s", Unit::kSeconds, Better::kLower, "per-read latency, 99th percentile"},
      {"latency_max_s", Unit::kSeconds, Better::kLower, "per-read latency, max"},
  };
  return kMetrics;
}

}  // namespace iofab
