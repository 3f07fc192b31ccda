// A small whole file (a manifest) written or read through its store's own
// engine: on a file with a descriptor the callers keep their plain write and
// read; an object store's file has none, so its bytes go through the engine
// the store names (caps().engine), and the write's commit is Engine::fsync.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "harness/core/status.h"
#include "harness/store/store.h"

namespace iofab {

// Writes bytes as the whole of file (just created on store) and commits it.
Status write_store_file(Store& store, const StoreFile& file, std::string_view bytes);
// Reads the whole of file (opened on store); more than max_bytes: InvalidArgument naming the limit.
Status read_store_file(Store& store, const StoreFile& file, uint64_t max_bytes, std::string* out);

}  // namespace iofab
