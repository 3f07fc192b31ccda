// Unfinished multipart uploads under a prefix (ListMultipartUploads, across
// pages): what `iofab clean` aborts under a run prefix a killed run left.
#pragma once

#include <string_view>
#include <vector>

#include "harness/core/status.h"
#include "harness/s3/s3_client.h"
#include "harness/s3/s3_ops.h"

namespace iofab {

// Every upload begun and neither completed nor aborted whose key starts with prefix (key and upload id;
// no etags). A server that pages with the same markers twice is an error, not a loop; one that does not
// implement the listing (501): Unavailable.
Status s3_list_uploads(S3Client& c, std::string_view prefix, std::vector<S3Upload>* out);

}  // namespace iofab
