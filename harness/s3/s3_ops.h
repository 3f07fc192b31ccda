// S3 operations built from single requests on an S3Client: a whole upload
// (one PUT, or a multipart upload with parts in parallel), a ranged GET, a
// listing with its continuation, a delete of many keys. Each keeps up to the
// client's `connections` requests in flight and waits for all of them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.h"
#include "harness/s3/s3_client.h"

namespace iofab {

struct S3Object {
  std::string key;
  uint64_t size = 0;
  int64_t modified_unix_ns = 0;  // its LastModified; 0 when the listing gave none that reads
};

// An ISO 8601 UTC time as S3 lists it ("2026-11-28T13:10:00.123Z") in ns since the epoch; 0 when it does
// not read.
int64_t s3_time_unix_ns(const std::string& text);

// A multipart upload begun and not yet completed or aborted: what Ctrl-C must abort.
struct S3Upload {
  std::string key;
  std::string upload_id;
  std::vector<std::string> etags;  // by part number - 1
};

// Uploads data to key: one PUT up to part_size, else a multipart upload of part_size parts with at most
// parallel_parts in flight, completed at the end. A failed multipart upload is aborted.
Status s3_upload(S3Client& c, std::string_view key, std::string_view data, uint64_t part_size,
                 unsigned parallel_parts);

// The steps of a multipart upload, for callers that produce the parts over time (a writer engine).
Status s3_begin_upload(S3Client& c, std::string_view key, S3Upload* up);
// CompleteMultipartUpload's body from the parts' ETags.
std::string s3_complete_body(const S3Upload& up);
Status s3_complete_upload(S3Client& c, const S3Upload& up);
Status s3_abort_upload(S3Client& c, const S3Upload& up);
// The query of UploadPart number part (1-based).
std::string s3_part_query(const S3Upload& up, unsigned part);

// Reads [offset, offset + dest.size()) of key into dest; *got is what came (short at the object's end).
Status s3_get_range(S3Client& c, std::string_view key, uint64_t offset, char* dest, uint64_t len, uint64_t* got);
// Every key below prefix ("" for the whole bucket), in S3's order (lexicographic), across pages.
Status s3_list(S3Client& c, std::string_view prefix, std::vector<S3Object>* out);
// Deletes every key given, connections at a time. A key already gone is not an error (S3 answers 204).
Status s3_delete_keys(S3Client& c, const std::vector<std::string>& keys);
// Lists and deletes every key below prefix, which must be non-empty and end in '/'
// (so "run-1/" never takes "run-10/...").
Status s3_delete_prefix(S3Client& c, std::string_view prefix, uint64_t* deleted);

}  // namespace iofab
