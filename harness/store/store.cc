#include "harness/store/store.h"

#include "harness/engines/engine_choice.h"
#include "harness/store/store_bytes.h"

namespace iofab {

Status Store::put_file(std::string_view path, std::string_view bytes) {
  StoreFile file;
  if (Status s = create(path, {}, &file); !s.ok()) return s;
  return write_store_file(*this, file, bytes);
}

Status Store::get_file(std::string_view path, uint64_t max_bytes, std::string* bytes) {
  StoreFile file;
  if (Status s = open(path, {}, &file); !s.ok()) return s;
  return read_store_file(*this, file, max_bytes, bytes);
}

Status engine_for_store(const Store& store, std::string_view asked, std::string* out) {
  const char* own = store.caps().engine;
  if (own == nullptr) {
    *out = resolve_engine_name(asked);
    return Status::Ok();
  }
  if (asked != "auto" && asked != own) {
    return Status::Invalid("engine: \"" + std::string(asked) + "\" cannot reach the " + std::string(store.name()) +
                           " store at " + store.location() + "; expected \"auto\" or \"" + own + "\"");
  }
  *out = own;
  return Status::Ok();
}

Status check_store_path(std::string_view path, bool allowed_root) {
  if (path.empty())
    return allowed_root ? Status::Ok() : Status::Invalid("store path: empty, expected a name");
  if (path.front() == '/') {
    return Status::Invalid("store path \"" + std::string(path) +
                           "\": absolute, expected a path below the root");
  }
  size_t start = 0;
  while (start <= path.size()) {
    const size_t slash = path.find('/', start);
    const std::string_view part =
        path.substr(start, slash == std::string_view::npos ? path.npos : slash - start);
    if (part.empty() || part == "." || part == ".." || part.size() > 255) {
      return Status::Invalid("store path \"" + std::string(path) +
                             "\": expected '/'-separated names, none empty, \".\", \"..\" or over 255 bytes");
    }
    if (part.find('\0') != std::string_view::npos) {
      return Status::Invalid("store path: a NUL byte in \"" + std::string(part) + "\"");
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return Status::Ok();
}

std::string join_store_path(std::string_view folder, std::string_view name) {
  if (folder.empty()) return std::string(name);
  if (name.empty()) return std::string(folder);
  std::string out(folder);
  out += '/';
  out += name;
  return out;
}

}  // namespace iofab
