// Where an s3:// run sends its requests, from the places awscli v2 and the
// AWS SDKs look, after the suite's own settings:
//
//   endpoint: the suite's s3.endpoint, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL,
//             the profile's "s3 =" sub-section endpoint_url in ~/.aws/config
//             (AWS_CONFIG_FILE; profile AWS_PROFILE, else default), the
//             profile's endpoint_url, then AWS's own endpoint for the region
//             (https://s3.REGION.amazonaws.com) when a region is named.
//             AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true skips the environment's
//             and the config file's endpoints, as the SDKs do.
//   region:   the suite's s3.region, AWS_REGION, AWS_DEFAULT_REGION, the
//             profile's region, else us-east-1.
//
// Each choice says where it came from, for the report (target.endpoint_source)
// and for messages; nothing here reads or names credentials.
#pragma once

#include <string>

#include "harness/core/status.h"
#include "harness/s3/s3_credentials.h"

namespace iofab {

struct S3Endpoint {
  std::string endpoint;         // "http://127.0.0.1:9000", checked by check_s3_endpoint
  std::string endpoint_source;  // "suite s3.endpoint", "AWS_ENDPOINT_URL", "/home/u/.aws/config [default]
                                // endpoint_url"
  std::string region;           // never empty
  std::string region_source;    // "suite s3.region", "AWS_REGION", ..., "default"
};

// suite_endpoint and suite_region: the suite's s3.endpoint and s3.region ("" when not given).
// InvalidArgument when no place names an endpoint (the message lists every place looked at), when an
// endpoint found is not http(s)://host[:port] (the message names its source), or when the config file
// does not parse.
Status resolve_s3_endpoint(const std::string& suite_endpoint, const std::string& suite_region,
                           const EnvLookup& env, S3Endpoint* out);

}  // namespace iofab
