#include "harness/s3/s3_uploads.h"

#include "harness/s3/s3_config.h"
#include "harness/s3/s3_errors.h"

namespace iofab {

Status s3_list_uploads(S3Client& c, std::string_view prefix, std::vector<S3Upload>* out) {
  std::vector<S3Upload> all;
  std::string key_marker, id_marker;
  for (;;) {
    S3Request req;
    req.method = S3Method::kGet;
    // Names sorted, as SigV4's canonical query wants them.
    if (!key_marker.empty()) req.query = "key-marker=" + s3_uri_encode(key_marker, false) + "&";
    req.query += "prefix=" + s3_uri_encode(prefix, false);
    if (!id_marker.empty()) req.query += "&upload-id-marker=" + s3_uri_encode(id_marker, false);
    req.query += "&uploads=";
    S3Result r;
    if (Status s = c.perform(std::move(req), &r); !s.ok()) {
      // Servers that keep no list of uploads (s3rver) answer 501 NotImplemented.
      return r.http_status == 501 ? Status::Unavailable(s.message()) : s;
    }
    for (const std::string& item : s3_xml_all(r.text, "Upload")) {
      S3Upload u;
      u.key = s3_xml_text(item, "Key");
      u.upload_id = s3_xml_text(item, "UploadId");
      // Only what the prefix asked for, whatever the server sends.
      if (u.key.starts_with(prefix) && !u.upload_id.empty()) all.push_back(std::move(u));
    }
    if (s3_xml_text(r.text, "IsTruncated") != "true") break;
    std::string next_key = s3_xml_text(r.text, "NextKeyMarker");
    std::string next_id = s3_xml_text(r.text, "NextUploadIdMarker");
    if (next_key.empty() || (next_key == key_marker && next_id == id_marker)) {
      return Status::IoError("s3: listing unfinished uploads under \"" + std::string(prefix) +
                             "\": the server says there is more but gives no new marker");
    }
    key_marker = std::move(next_key);
    id_marker = std::move(next_id);
  }
  *out = std::move(all);
  return Status::Ok();
}

}  // namespace iofab
