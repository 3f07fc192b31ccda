// The S3 store: a key prefix in a bucket ("<prefix>/iofab-<run id>"), reached
// through the S3Client. Folders are prefixes that exist once something is
// below them; a file is an object, written by the s3 engine (caps().engine)
// and existing only once its upload is committed (caps().commit_per_file);
// there is no rename (commit), no lock and no free-space figure, and the
// caps say so rather than pretend. remove_tree lists and deletes only the keys
// below the root, which is never the bucket's root.
#pragma once

#include <memory>
#include <string>

#include "harness/s3/s3_object.h"
#include "harness/store/store.h"

namespace iofab {

// root: the key prefix every path goes below ("runs/iofab-20260101T000000Z-abc123"), non-empty.
Status open_s3_store(std::shared_ptr<S3Target> target, const std::string& root, std::unique_ptr<Store>* out);

}  // namespace iofab
