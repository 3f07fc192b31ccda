#include "harness/phase/io_params.h"

#include <string_view>
#include <vector>

#include "harness/engines/engine.h"
#include "harness/phase/params.h"

namespace iofab {

namespace {

// The names a suite may give: "auto" and the engine table's. Only a refused name lists them, as listing
// probes every engine (cufile's probe starts the CUDA driver).
std::string read_engine(ParamReader& r) {
  return r.choice(
      "engine", "auto", [](std::string_view name) { return name == "auto" || is_engine_name(name); },
      [] {
        std::vector<std::string> names = {"auto"};
        for (const EngineInfo& e : list_engines()) names.push_back(e.name);
        return names;
      });
}

}  // namespace

IoParams read_io_params(ParamReader& r, const IoParamsForm& form) {
  IoParams p;
  p.engine = read_engine(r);
  p.direct = r.boolean("direct", false);
  p.workers = static_cast<unsigned>(r.integer("workers", 1, 1, 1024));
  if (form.has_block_size) p.block_size = r.size("block_size", 1ULL << 20, 512, 256ULL << 20);
  p.queue_depth = static_cast<unsigned>(r.integer("queue_depth", form.queue_depth, 1, 4096));
  p.series_interval_ns = static_cast<uint64_t>(r.duration("series_interval", 0.1, 0.001, 3600) * 1e9);
  if (p.direct && p.block_size % kDirectAlignment != 0) {
    r.fail("block_size", "must be a multiple of 4KiB when direct is true (O_DIRECT alignment)");
  }
  if (p.direct && !engine_takes_direct(p.engine)) {
    r.fail("direct", "engine " + p.engine +
                         " reads by page faults through the page cache, which O_DIRECT bypasses: set direct: "
                         "false, or engine psync or io_uring");
  }
  if (form.reads) {
    const std::string advice = r.choice(
        "madvise", "none", [](std::string_view name) { return parse_map_advice(name, nullptr); },
        [] { return std::vector<std::string>(map_advice_names().begin(), map_advice_names().end()); });
    MapAdvice parsed = MapAdvice::kNone;
    if (parse_map_advice(advice, &parsed)) p.madvise = parsed;
    if (p.madvise != MapAdvice::kNone && !engine_takes_map_advice(p.engine)) {
      r.fail("madvise", "is the hint for an engine that maps files (engine: mmap); engine " + p.engine +
                            " maps nothing: leave madvise out or set it to \"none\"");
    }
  }
  return p;
}

}  // namespace iofab
