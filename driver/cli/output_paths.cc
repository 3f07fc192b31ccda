#include "driver/cli/output_paths.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <random>

namespace iofab {

namespace {

std::string parent_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// What makes two spellings the same file: an existing file's device and inode
// (symlinks and hard links included), or, for one not there yet, its folder's
// device and inode plus its name ("x.json" and "./x.json").
struct FileKey {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string name;
  bool operator==(const FileKey&) const = default;
};

std::optional<FileKey> key_of(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) return FileKey{true, st.st_dev, st.st_ino, ""};
  if (stat(parent_of(path).c_str(), &st) != 0) return std::nullopt;
  return FileKey{false, st.st_dev, st.st_ino, base_of(path)};
}

}  // namespace

Status check_outputs_distinct(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
  std::vector<std::pair<const NamedPath*, FileKey>> seen;
  for (const NamedPath& in : inputs) {
    if (in.path.empty()) continue;
    auto k = key_of(in.path);
    if (k && k->exists) seen.emplace_back(&in, *k);
  }
  const size_t n_inputs = seen.size();
  for (const NamedPath& o : outputs) {
    if (o.path.empty() || o.path == "-") continue;
    auto k = key_of(o.path);
    if (!k) continue;  // its folder is missing: check_output_creatable says so
    for (size_t i = 0; i < seen.size(); ++i) {
      if (!(seen[i].second == *k)) continue;
      const NamedPath& other = *seen[i].first;
      const bool is_input = i < n_inputs;
      return Status::Invalid(
          o.option + " \"" + o.path + "\" is the same file as " + (is_input ? "the input " : "the output ") +
          other.option + " \"" + other.path + "\": writing it would " +
          (is_input ? "replace the file being read" : "make one output overwrite the other") +
          "; choose another path; nothing was run or written");
    }
    seen.emplace_back(&o, *k);
  }
  return Status::Ok();
}

Status check_output_creatable(const NamedPath& o) {
  if (o.path.empty() || o.path == "-") return Status::Ok();
  auto bad = [&](const std::string& why) {
    return Status::Invalid(o.option + " \"" + o.path + "\": " + why + "; nothing was run or written");
  };
  struct stat st {};
  if (stat(o.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return bad("is a folder, expected a file path");
  const std::string dir = parent_of(o.path);
  if (stat(dir.c_str(), &st) != 0) {
    return bad("its folder \"" + dir + "\" cannot be used (" + std::strerror(errno) + ")");
  }
  if (!S_ISDIR(st.st_mode)) return bad("\"" + dir + "\" is not a folder");
  // The writer makes a temp file beside the path and renames it over: make one the same way.
  std::random_device rd;
  const std::string probe = (dir == "/" ? "" : dir) + "/.iofab-probe-" + std::to_string(getpid()) + "-" +
                            std::to_string(rd() & 0xffffffu);
  const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return bad("cannot create a file in \"" + dir + "\" (" + std::strerror(errno) + ")");
  close(fd);
  unlink(probe.c_str());
  return Status::Ok();
}

Status check_outputs(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
  for (const NamedPath& o : outputs) {
    if (Status s = check_output_creatable(o); !s.ok()) return s;
  }
  return check_outputs_distinct(inputs, outputs);
}

}  // namespace iofab
