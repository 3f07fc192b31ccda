// ParamReader: reads one phase's parameters from its suite object, falling
// back to the suite's `defaults`, and validates each against its expected
// form. Errors name the JSON path and the expected form; they accumulate so
// a user sees every mistake at once. Every key read is recorded, with its
// resolved value in base units, for the report's `params` and for the
// unknown-key check: a typo must never fall back to a default silently.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/status.h"

namespace iofab {

// The largest size any param takes: 1 EiB. Far above any real file, shard or dataset, and low enough that a
// few such sizes times counts of workers and ranks are still caught by checked arithmetic, not wrapped.
constexpr uint64_t kMaxSizeBytes = 1ULL << 60;

class ParamReader {
 public:
  // obj: the phase's object at `path` (e.g. "phases[1]"); defaults: the
  // suite's `defaults` object (may be null) whose keys apply where obj has none.
  ParamReader(const nlohmann::json& obj, std::string path, const nlohmann::json* defaults = nullptr);

  // Each getter returns the default when the key is absent, and also when
  // the value is bad (after recording the error). A size's max is at most
  // kMaxSizeBytes whatever the caller asks.
  uint64_t size(std::string_view key, uint64_t def, uint64_t min = 0, uint64_t max = kMaxSizeBytes);
  double duration(std::string_view key, double def, double min = 0,
                  double max = std::numeric_limits<double>::max());
  double rate(std::string_view key, double def);
  double count(std::string_view key, double def, double min = 0,
               double max = std::numeric_limits<double>::max());
  double fraction(std::string_view key, double def, double min = 0, double max = 1);
  int64_t integer(std::string_view key, int64_t def, int64_t min, int64_t max);
  bool boolean(std::string_view key, bool def);
  std::string choice(std::string_view key, std::string def, std::initializer_list<std::string_view> allowed);
  // A choice among names known only at run time (the engine table): known(name) answers for one name,
  // names() lists them all for the message; it runs only when a value is refused, as listing may be costly.
  std::string choice(std::string_view key, std::string def,
                     const std::function<bool(std::string_view)>& known,
                     const std::function<std::vector<std::string>()>& names);
  std::string string(std::string_view key, std::string def);
  // For nested values a phase reads itself; nullptr when absent.
  const nlohmann::json* raw(std::string_view key);

  // Records a phase-specific validation error against key, e.g. a relation
  // between two parameters: "phases[0].batch_size: must be <= num_samples (100)".
  void fail(std::string_view key, std::string_view message);
  // Records an error that already names its full path: one found in a nested object the phase reads
  // itself (checkpoint's `model`), whose fields have paths of their own.
  void fail_at_path(std::string message);
  // The JSON path of key as the user wrote it (phase or defaults).
  std::string path_of(std::string_view key) const;

  // Reports keys in the phase's own object that no getter asked for
  // (ignoring `ignore`, the keys the suite layer owns) and returns every
  // error collected, joined by newlines, as an Invalid status.
  Status finish(const std::set<std::string, std::less<>>& ignore = {});

  const std::vector<std::string>& errors() const { return errors_; }
  const std::set<std::string, std::less<>>& known_keys() const { return known_; }
  // Every parameter read, resolved: sizes in bytes, durations in seconds.
  const nlohmann::json& resolved() const { return resolved_; }

 private:
  // What sets one unit apart (size, duration, rate, count, fraction): how a
  // value reads in base units, and how the messages name the unit.
  template <class T>
  struct Unit;
  // One getter for every unit: reads key with unit, checks it against [min, max].
  template <class T>
  T quantity(std::string_view key, T def, T min, T max, const Unit<T>& unit);

  const nlohmann::json* lookup(std::string_view key);
  void bad(std::string_view key, std::string_view expected, const nlohmann::json& got);

  const nlohmann::json& obj_;
  std::string path_;
  const nlohmann::json* defaults_;
  std::set<std::string, std::less<>> known_;
  std::vector<std::string> errors_;
  nlohmann::json resolved_ = nlohmann::json::object();
};

// "got" text for messages: strings quoted, others dumped.
std::string describe_json_value(const nlohmann::json& v);
// The words of a list param: an array of names, or one string of names separated by
// commas (handy with --set). A non-string array element comes back as its JSON text,
// so the caller's "unknown name" error shows it.
std::vector<std::string> name_list(const nlohmann::json& v);

}  // namespace iofab
