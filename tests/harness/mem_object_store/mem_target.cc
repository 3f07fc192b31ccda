#include "mem_target.h"

#include <map>

#include "driver/cli/commands.h"
#include "driver/targets/object_store_suite.h"
#include "harness/fs/run_dir.h"
#include "mem_object_store.h"

namespace iofab::mem {
namespace {

constexpr std::string_view kScheme = "mem://";

bool valid_bucket(std::string_view b) {
  return !b.empty() && b.size() <= 63 &&
         b.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string_view::npos;
}

bool valid_prefix(std::string_view p) {
  if (p.empty()) return false;
  for (size_t start = 0;;) {
    const size_t slash = p.find('/', start);
    const std::string_view part = p.substr(start, slash == std::string_view::npos ? p.npos : slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (slash == std::string_view::npos) return true;
    start = slash + 1;
  }
}

class MemRunTarget final : public RunTarget {
 public:
  explicit MemRunTarget(std::string path) : path_(std::move(path)) {}

  Status check() override {
    if (Status s = parse_mem_target(path_, &bucket_, &prefix_); !s.ok()) return s;
    info_ = TargetInfo{};
    info_.path = path_;
    info_.fs_type = "mem";
    info_.access = "object";
    info_.mount_point = "mem://" + bucket_;
    info_.mount_source = "memory";
    info_.device = "memory";
    return Status::Ok();
  }
  std::optional<uint64_t> free_bytes() const override { return std::nullopt; }

  // Keys under <prefix>/iofab-<run id>/ only; kept from the start when asked, as a folder is.
  Status open_run(Comm& comm, const std::string& run_id, bool keep) override {
    Status s = open_mem_object_store(mem_bucket(bucket_), prefix_ + "/iofab-" + run_id, &store_);
    if (s.ok() && keep && comm.rank() == 0) s = store_->put_file(kKeptMarkerName, "");
    return s;
  }
  Store& store() override { return *store_; }
  std::string location() const override { return store_ ? store_->location() : path_; }
  Status check_direct_io(const std::vector<std::string>&, int) override { return Status::Ok(); }
  Status remove_run(bool writer) override {
    return writer && store_ ? store_->remove_tree("") : Status::Ok();
  }
  std::optional<uint64_t> free_bytes_after(Status* why) const override {
    *why = Status::Ok();
    return std::nullopt;
  }
  std::string clean_command(const std::string&) const override {
    return "nothing to run: a mem:// bucket goes with the test process that held it";
  }

 private:
  std::string path_;
  std::string bucket_, prefix_;
  std::unique_ptr<Store> store_;
};

// The run prefixes below base ("<prefix>/"): each run's keys, and whether it was kept.
struct RunKeys {
  std::vector<std::string> keys;
  bool kept = false;
};

std::map<std::string, RunKeys> run_prefixes(const MemBucket& bucket, const std::string& base) {
  std::map<std::string, RunKeys> runs;
  for (const auto& [key, obj] : bucket.list(base + "iofab-")) {
    const std::string rest = key.substr(base.size());
    const std::string name = rest.substr(0, rest.find('/'));
    if (name.size() == rest.size() || !is_run_dir_name(name)) continue;
    RunKeys& r = runs[name];
    r.kept = r.kept || rest == name + "/" + kKeptMarkerName;
    r.keys.push_back(key);
  }
  return runs;
}

}  // namespace

bool is_mem_target(std::string_view target) { return target.starts_with(kScheme); }

Status parse_mem_target(std::string_view target, std::string* bucket, std::string* prefix) {
  const std::string_view rest = is_mem_target(target) ? target.substr(kScheme.size()) : std::string_view();
  const size_t slash = rest.find('/');
  const std::string_view b = rest.substr(0, slash);
  std::string_view p = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  while (!p.empty() && p.back() == '/') p.remove_suffix(1);
  if (!valid_bucket(b) || !valid_prefix(p)) {
    return Status::Invalid(
        "target \"" + std::string(target) +
        "\": expected mem://bucket/prefix (a bucket of 1-63 of a-z, 0-9 and '-', and a prefix "
        "of '/'-separated names below it, none empty, \".\" or \"..\")");
  }
  *bucket = std::string(b);
  *prefix = std::string(p);
  return Status::Ok();
}

std::unique_ptr<RunTarget> make_mem_run_target(const std::string& target, const Suite&) {
  return std::make_unique<MemRunTarget>(target);
}

Status check_suite_on_mem(const Suite& suite, std::string_view target, int) {
  std::vector<std::string> errors;
  std::string bucket, prefix;
  if (Status s = parse_mem_target(target, &bucket, &prefix); !s.ok()) errors.push_back(s.message());
  check_suite_on_object_store(suite, {.where = "a mem:// target", .engine = "mem"}, &errors);
  return errors.empty() ? Status::Ok() : Status::Invalid(join_lines(errors));
}

int clean_mem_target(const CleanArgs& args, bool interactive, std::istream& in, std::ostream& out,
                     std::ostream& err) {
  std::string bucket, prefix;
  if (Status s = parse_mem_target(args.target, &bucket, &prefix); !s.ok()) {
    err << "iofab clean: " << s.message() << "\n";
    return 2;
  }
  const std::shared_ptr<MemBucket> b = mem_bucket(bucket);
  std::map<std::string, RunKeys> runs = run_prefixes(*b, prefix + "/");
  std::erase_if(runs, [&](const auto& run) { return run.second.kept && !args.include_kept; });
  if (runs.empty()) {
    out << "no run prefixes under " << args.target << "\n";
    return 0;
  }
  for (const auto& [name, r] : runs) out << "  " << name << "/  " << r.keys.size() << " objects\n";
  if (!confirm_removal(std::to_string(runs.size()) + " run prefixes", runs.size(), args.yes, interactive, in,
                       out))
    return 0;
  for (const auto& [name, r] : runs) {
    b->remove_prefix(prefix + "/" + name + "/");
    out << "removed " << args.target << "/" << name << "/\n";
  }
  return 0;
}

RunTargetKind mem_target_kind() {
  return {.name = "mem",
          .shown = "mem (a memory object store, tests only)",
          .claims = is_mem_target,
          .make = make_mem_run_target,
          .check_suite = check_suite_on_mem,
          .clean = clean_mem_target};
}

std::vector<RunTargetKind> kinds_with_mem() {
  std::vector<RunTargetKind> kinds = run_target_kinds();
  kinds.insert(kinds.end() - 1, mem_target_kind());  // above the folder's row, the last
  return kinds;
}

}  // namespace iofab::mem
