// What a suite may hold on any object store's target (s3://, and a test's mem://): the phase kinds whose
// table row says they run there, params that make sense there, only the store's own engine, no O_DIRECT
// and no concurrent group. Each kind of object-store target calls it from its check_suite, with its own
// name for the messages, and adds its own rules (S3's key lengths).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace iofab {

struct Suite;

struct ObjectStoreTarget {
  std::string_view where;   // how messages name the target: "an s3:// target"
  std::string_view engine;  // the store's own engine, the one a suite may name besides "auto": "s3"
};

// Each problem of suite on such a target, appended to errors as a person reads it.
void check_suite_on_object_store(const Suite& suite, const ObjectStoreTarget& target,
                                 std::vector<std::string>* errors);

}  // namespace iofab
