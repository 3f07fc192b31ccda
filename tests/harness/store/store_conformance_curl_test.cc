// The Store contract on the S3 store, against a real s3rver: one server for the whole suite, each test
// under a root of its own.
#include "harness/store/s3_store.h"
#include "s3rver_fixture.h"
#include "harness/store_conformance.h"

namespace iofab::testing {
namespace {

Status open_s3_for(const std::string& test, StoreUnderTest* out, std::string* skip) {
  // Started once, on first use, and stopped by its pid when the tests end.
  static std::unique_ptr<S3rver> server;
  static std::string why_not;
  if (!server && why_not.empty()) {
    if (Status s = S3rver::start("conformance", &server, &why_not); !s.ok()) return s;
  }
  if (!server) {
    *skip = why_not;
    return Status::Ok();
  }
  auto t = std::make_shared<S3Target>();
  t->config.endpoint = server->endpoint();
  t->config.bucket = server->bucket();
  t->config.backoff_base_ns = 1'000'000;
  t->creds = S3Credentials{kS3rverKeyId, kS3rverSecret, "", "test", ""};
  return open_s3_store(t, "conformance/" + test, &out->store);
}

INSTANTIATE_TEST_SUITE_P(ObjectStores, StoreConformance, ::testing::Values(StoreParam{"s3", open_s3_for}),
                         [](const ::testing::TestParamInfo<StoreParam>& p) { return p.param.name; });

}  // namespace
}  // namespace iofab::testing
