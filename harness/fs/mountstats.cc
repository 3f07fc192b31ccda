#include "harness/fs/mountstats.h"

#include <fstream>
#include <sstream>
#include <vector>

namespace iofab {
namespace {

// mountstats escapes a space in a mount point as \040, like mountinfo.
std::string escape_mount(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\\') {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\%03o", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// Whether a "device SRC mounted on POINT with fstype TYPE ..." line is the NFS mount at wanted (escaped).
bool is_nfs_mount_line(const std::string& line, const std::string& wanted) {
  std::istringstream ls(line);
  std::vector<std::string> f;
  std::string tok;
  while (ls >> tok) f.push_back(tok);
  return f.size() >= 8 && f[2] == "mounted" && f[3] == "on" && f[4] == wanted && f[5] == "with" &&
         f[6] == "fstype" && f[7].rfind("nfs", 0) == 0;
}

std::string read_mountstats() {
  std::ifstream f("/proc/self/mountstats");
  if (!f) return {};
  std::ostringstream text;
  text << f.rdbuf();
  return text.str();
}

}  // namespace

std::optional<NfsOpCounts> parse_nfs_op_counts(std::string_view text, const std::string& mount_point) {
  std::istringstream in{std::string(text)};
  std::string line;
  const std::string wanted = escape_mount(mount_point);
  bool in_mount = false, in_ops = false;
  NfsOpCounts counts;
  while (std::getline(in, line)) {
    if (line.rfind("device ", 0) == 0) {
      if (in_mount) break;  // the next mount: ours has ended
      in_mount = is_nfs_mount_line(line, wanted);
      continue;
    }
    if (!in_mount) continue;
    std::istringstream ls(line);
    std::string key;
    if (!(ls >> key)) continue;
    if (key == "per-op") {
      in_ops = true;
      continue;
    }
    // "        LOOKUP: 12 12 0 1848 2880 0 0 1 0": the operations sent come first.
    uint64_t ops = 0;
    if (in_ops && key.size() > 1 && key.back() == ':' && (ls >> ops)) counts[key.substr(0, key.size() - 1)] = ops;
  }
  if (!in_ops) return std::nullopt;  // not that mount, not NFS, or no per-op section
  return counts;
}

std::optional<NfsOpCounts> read_nfs_op_counts(const std::string& mount_point) {
  const std::string text = read_mountstats();
  if (text.empty()) return std::nullopt;
  return parse_nfs_op_counts(text, mount_point);
}

std::optional<ClientCounters> parse_client_counters(std::string_view text, const std::string& mount_point) {
  std::istringstream in{std::string(text)};
  std::string line;
  const std::string wanted = escape_mount(mount_point);
  bool in_mount = false;
  while (std::getline(in, line)) {
    if (line.rfind("device ", 0) == 0) {
      // "device SRC mounted on POINT with fstype TYPE ..."
      std::istringstream ls(line);
      std::vector<std::string> f;
      std::string tok;
      while (ls >> tok) f.push_back(tok);
      in_mount = f.size() >= 8 && f[2] == "mounted" && f[3] == "on" && f[4] == wanted && f[5] == "with" &&
                 f[6] == "fstype" && f[7].rfind("nfs", 0) == 0;
      continue;
    }
    if (!in_mount) continue;
    std::istringstream ls(line);
    std::string key;
    if (!(ls >> key) || key != "bytes:") continue;
    // normalread normalwrite directread directwrite serverread serverwrite readpages writepages
    uint64_t v[6] = {};
    for (auto& x : v) {
      if (!(ls >> x)) return std::nullopt;
    }
    return ClientCounters{v[4], v[5]};
  }
  return std::nullopt;
}

std::optional<ClientCounters> read_client_counters(const std::string& mount_point) {
  std::ifstream f("/proc/self/mountstats");
  if (!f) return std::nullopt;
  std::ostringstream text;
  text << f.rdbuf();
  return parse_client_counters(text.str(), mount_point);
}

}  // namespace iofab
