// S3Client on libcurl's multi interface: the multi handle keeps a pool of
// connections that later requests reuse, CURLOPT_AWS_SIGV4 signs every
// request, and retries wait their backoff without holding a connection.
#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <mutex>
#include <string_view>

#include "harness/s3/s3_client.h"
#include "harness/s3/s3_errors.h"

namespace iofab {
namespace {

constexpr size_t kMaxTextBytes = 16u << 20;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// curl_global_init is not thread-safe before 7.84; once per process, on first use.
void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

S3Transport transport_of(CURLcode c) {
  switch (c) {
    case CURLE_OK:
      return S3Transport::kOk;
    case CURLE_COULDNT_CONNECT:
      return S3Transport::kConnectRefused;
    case CURLE_COULDNT_RESOLVE_HOST:
      return S3Transport::kResolve;
    case CURLE_OPERATION_TIMEDOUT:
      return S3Transport::kTimeout;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
      return S3Transport::kDropped;
    default:
      return S3Transport::kOther;
  }
}

const char* transport_key(S3Transport t) {
  switch (t) {
    case S3Transport::kConnectRefused:
      return "connect_refused";
    case S3Transport::kResolve:
      return "resolve";
    case S3Transport::kTimeout:
      return "timeout";
    case S3Transport::kDropped:
      return "dropped";
    default:
      return "other";
  }
}

struct Transfer {
  S3Request req;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  unsigned attempt = 0;       // tries made so far
  int64_t retry_at_ns = 0;    // when a retry may start
  uint64_t sent = 0;          // body bytes handed to curl this try
  uint64_t received = 0;      // body bytes stored this try
  bool overflow = false;      // the answer was longer than dest
  int64_t start_ns = 0;       // this try went to curl
  int64_t first_byte_ns = 0;  // its answer's status line came (0: not yet)
  int64_t sent_whole_ns = 0;  // the request went out whole, body and all (0: not yet)
  int64_t first_byte_timeout_ns = 0;
  std::string stalled;  // why a stall limit ended this try ("" when none did)
  std::string text;
  std::string etag;
  char errbuf[CURL_ERROR_SIZE] = {};
};

size_t on_write(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t len = size * n;
  long code = 0;
  curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
  // An error's body is S3's XML, never the data: keep it as text even for a GET into dest.
  if (t->req.dest != nullptr && code >= 200 && code < 300) {
    if (t->received + len > t->req.dest_len) {
      t->overflow = true;
      return 0;  // ends the transfer with CURLE_WRITE_ERROR
    }
    std::copy_n(data, len, t->req.dest + t->received);
  } else {
    if (t->text.size() + len > kMaxTextBytes) return 0;
    t->text.append(data, len);
  }
  t->received += len;
  return len;
}

size_t on_read(char* out, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t len = std::min<uint64_t>(size * n, t->req.body.size() - t->sent);
  std::copy_n(t->req.body.data() + t->sent, len, out);
  t->sent += len;
  return len;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  // Time to first byte is ours, not curl's STARTTRANSFER_TIME, which an upload sets when its body starts
  // to go out: here it is the server's first answer byte, after the whole body for a PUT.
  if (t->first_byte_ns == 0) t->first_byte_ns = now_ns();
  const std::string_view line(data, size * n);
  if (line.size() > 5 &&
      (line.starts_with("ETag:") || line.starts_with("etag:") || line.starts_with("Etag:"))) {
    std::string_view v = line.substr(5);
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ')) v.remove_suffix(1);
    t->etag = std::string(v);
  }
  return size * n;
}

// libcurl asks about once a second, and at every step of the transfer: ends a try whose answer does not
// start within first_byte_timeout of the request going out whole (curl has no such limit of its own: its
// low-speed limit alone would wait low_speed_time, and a server that reads the request and never answers
// is how a wedged gateway looks).
int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t ulnow) {
  auto* t = static_cast<Transfer*>(user);
  if (t->first_byte_ns != 0) return 0;
  const int64_t now = now_ns();
  // Connected and the request begun (the connect has its own timeout), and its body all handed over.
  curl_off_t began = 0;
  curl_easy_getinfo(t->easy, CURLINFO_PRETRANSFER_TIME_T, &began);
  const bool whole = began > 0 && static_cast<uint64_t>(ulnow) >= t->req.body.size();
  if (t->sent_whole_ns == 0) {
    if (whole) t->sent_whole_ns = now;
    return 0;
  }
  if (now - t->sent_whole_ns < t->first_byte_timeout_ns) return 0;
  char limit[32];
  std::snprintf(limit, sizeof limit, "%.3g", static_cast<double>(t->first_byte_timeout_ns) * 1e-9);
  t->stalled =
      "no answer within " + std::string(limit) + " s of the request going out (s3.first_byte_timeout)";
  return 1;  // ends the transfer with CURLE_ABORTED_BY_CALLBACK
}

class CurlS3Client final : public S3Client {
 public:
  CurlS3Client(S3Config cfg, S3Credentials creds) : cfg_(std::move(cfg)), creds_(std::move(creds)) {
    multi_ = curl_multi_init();
    curl_multi_setopt(multi_, CURLMOPT_MAX_TOTAL_CONNECTIONS, static_cast<long>(cfg_.connections));
    curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(cfg_.connections));
    curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(cfg_.connections));
    sigv4_ = "aws:amz:" + cfg_.region + ":s3";
  }

  ~CurlS3Client() override {
    for (auto& t : running_) drop(t.get());
    for (CURL* e : idle_) curl_easy_cleanup(e);
    curl_multi_cleanup(multi_);
  }

  const S3Config& config() const override { return cfg_; }
  unsigned pending() const override {
    return static_cast<unsigned>(waiting_.size() + running_.size() + backoff_.size());
  }
  const RequestStats& stats() const override { return stats_; }
  void set_stop(const std::atomic<bool>* stop) override { stop_ = stop; }

  Status submit(S3Request req) override {
    auto t = std::make_unique<Transfer>();
    t->req = std::move(req);
    if (t->req.body.empty() && !t->req.owned_body.empty()) t->req.body = t->req.owned_body;
    waiting_.push_back(std::move(t));
    return Status::Ok();
  }

  Status wait(unsigned min_complete, std::vector<S3Result>* out) override {
    unsigned got = 0;
    for (;;) {
      if (stop_ != nullptr && stop_->load(std::memory_order_relaxed)) {
        abandon();
        return Status::Interrupted();
      }
      if (Status s = start_due(); !s.ok()) return s;
      int still = 0;
      const CURLMcode mc = curl_multi_perform(multi_, &still);
      if (mc != CURLM_OK)
        return Status::Internal(std::string("s3: curl_multi_perform: ") + curl_multi_strerror(mc));
      got += collect(out);
      if (got >= min_complete || pending() == 0) return Status::Ok();
      // Sleep in poll until a socket is ready, the next retry is due, or 100 ms pass (to see the stop flag).
      int timeout_ms = 100;
      for (const auto& t : backoff_) {
        timeout_ms = std::min(
            timeout_ms, static_cast<int>(std::max<int64_t>(0, (t->retry_at_ns - now_ns()) / 1'000'000)));
      }
      if (timeout_ms > 0) curl_multi_poll(multi_, nullptr, 0, timeout_ms, nullptr);
    }
  }

 private:
  // Moves waiting requests and due retries onto free connections.
  Status start_due() {
    const int64_t now = now_ns();
    for (auto it = backoff_.begin(); it != backoff_.end() && running_.size() < cfg_.connections;) {
      if ((*it)->retry_at_ns <= now) {
        if (Status s = start(std::move(*it)); !s.ok()) return s;
        it = backoff_.erase(it);
      } else {
        ++it;
      }
    }
    while (!waiting_.empty() && running_.size() < cfg_.connections) {
      std::unique_ptr<Transfer> t = std::move(waiting_.front());
      waiting_.pop_front();
      if (Status s = start(std::move(t)); !s.ok()) return s;
    }
    return Status::Ok();
  }

  // An idle easy handle (its connection kept), else a new one; nullptr when curl cannot make one.
  CURL* take_easy() {
    if (idle_.empty()) return curl_easy_init();
    CURL* e = idle_.back();
    idle_.pop_back();
    curl_easy_reset(e);
    return e;
  }

  // A new try of t starts from nothing: no bytes, no answer, no timings.
  void reset_try(Transfer* t) const {
    t->sent = 0;
    t->received = 0;
    t->overflow = false;
    t->text.clear();
    t->etag.clear();
    t->errbuf[0] = '\0';
    t->first_byte_ns = 0;
    t->sent_whole_ns = 0;
    t->first_byte_timeout_ns = cfg_.first_byte_timeout_ns;
    t->stalled.clear();
  }

  // The URL, the timeouts, the signing and the callbacks: the same for every method.
  void set_common_options(CURL* e, Transfer* t) {
    const S3Request& r = t->req;
    url_ = s3_url(cfg_, r.key, r.query);
    curl_easy_setopt(e, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(e, CURLOPT_PRIVATE, t);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(cfg_.connect_timeout_ns / 1'000'000));
    // A stalled server must not hang a phase: under low_speed_limit for low_speed_time ends the try (and
    // it is retried), as does no answer within first_byte_timeout (on_progress).
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, static_cast<long>(cfg_.low_speed_limit));
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME,
                     std::max(1L, static_cast<long>(cfg_.low_speed_time_ns / 1'000'000'000)));
    curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(e, CURLOPT_XFERINFODATA, t);
    curl_easy_setopt(e, CURLOPT_AWS_SIGV4, sigv4_.c_str());
    curl_easy_setopt(e, CURLOPT_USERNAME, creds_.key_id.c_str());
    curl_easy_setopt(e, CURLOPT_PASSWORD, creds_.secret.c_str());
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, t);
  }

  // The method's own options; h: the headers so far, returned with any the method adds.
  curl_slist* set_method_options(CURL* e, Transfer* t, curl_slist* h) {
    const S3Request& r = t->req;
    switch (r.method) {
      case S3Method::kGet:
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
        if (r.ranged) {
          range_ = std::to_string(r.offset) + "-" + std::to_string(r.offset + r.length - 1);
          curl_easy_setopt(e, CURLOPT_RANGE, range_.c_str());
        }
        break;
      case S3Method::kHead:
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
        break;
      case S3Method::kDelete:
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE");
        break;
      case S3Method::kPut:
        curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(e, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(e, CURLOPT_READDATA, t);
        curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
        break;
      case S3Method::kPost:
        curl_easy_setopt(e, CURLOPT_POST, 1L);
        curl_easy_setopt(e, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(e, CURLOPT_READDATA, t);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
        h = curl_slist_append(h, "Content-Type: application/xml");
        break;
    }
    return h;
  }

  Status start(std::unique_ptr<Transfer> t) {
    CURL* e = take_easy();
    if (e == nullptr) return Status::Internal("s3: curl_easy_init failed");
    t->easy = e;
    reset_try(t.get());
    ++t->attempt;
    set_common_options(e, t.get());
    // S3 wants the payload's hash signed; UNSIGNED-PAYLOAD spares hashing every byte twice (TLS
    // protects it on https), as the AWS CLI does for streamed uploads.
    curl_slist* h = curl_slist_append(nullptr, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
    // No "Expect: 100-continue" round trip before every part.
    h = curl_slist_append(h, "Expect:");
    if (!creds_.session_token.empty())
      h = curl_slist_append(h, ("x-amz-security-token: " + creds_.session_token).c_str());
    h = set_method_options(e, t.get(), h);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
    t->headers = h;
    const CURLMcode mc = curl_multi_add_handle(multi_, e);
    if (mc != CURLM_OK) {
      curl_slist_free_all(h);
      return Status::Internal(std::string("s3: curl_multi_add_handle: ") + curl_multi_strerror(mc));
    }
    t->start_ns = now_ns();
    running_.push_back(std::move(t));
    return Status::Ok();
  }

  // Hands back the easy handle (its connection stays in the multi's pool).
  void drop(Transfer* t) {
    curl_multi_remove_handle(multi_, t->easy);
    curl_slist_free_all(t->headers);
    t->headers = nullptr;
    idle_.push_back(t->easy);
    t->easy = nullptr;
  }

  // Drops everything pending (after a stop): no result for them.
  void abandon() {
    for (auto& t : running_) drop(t.get());
    running_.clear();
    waiting_.clear();
    backoff_.clear();
  }

  unsigned collect(std::vector<S3Result>* out) {
    unsigned got = 0;
    int left = 0;
    while (CURLMsg* m = curl_multi_info_read(multi_, &left)) {
      if (m->msg != CURLMSG_DONE) continue;
      Transfer* raw = nullptr;
      curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&raw));
      const CURLcode cc = m->data.result;
      auto it = std::find_if(running_.begin(), running_.end(), [&](const auto& p) { return p.get() == raw; });
      std::unique_ptr<Transfer> t = std::move(*it);
      running_.erase(it);
      long http = 0;
      curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &http);
      // A HEAD's answer has no body: the object's size is its Content-Length header (-1: none came).
      curl_off_t length = -1;
      curl_easy_getinfo(t->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
      drop(t.get());
      count_try(*t, http);
      const S3Transport tr = transport_of_try(t.get(), cc);
      const bool retry = s3_retryable(http, tr) && t->attempt <= cfg_.max_retries &&
                         !(stop_ != nullptr && stop_->load(std::memory_order_relaxed));
      const std::string key = tr == S3Transport::kOk ? std::to_string(http) : transport_key(tr);
      if (!t->stalled.empty() && cfg_.on_stall) report_stall(*t, retry);
      if (retry) {
        ++stats_.retries;
        ++stats_.retried_by_status[key];
        t->retry_at_ns = now_ns() + s3_backoff_ns(t->attempt, cfg_.backoff_base_ns, cfg_.backoff_max_ns);
        backoff_.push_back(std::move(t));
        continue;
      }
      S3Result r = result_of(t.get(), cc, tr, http, length);
      if (!r.status.ok()) ++stats_.errors_by_status[key];
      out->push_back(std::move(r));
      ++got;
    }
    return got;
  }

  // A finished try's figures: the request, its time to first byte and latency, its bytes.
  void count_try(const Transfer& t, long http) {
    const int64_t end = now_ns();
    ++stats_.requests;
    stats_.ttfb_ns.record(static_cast<uint64_t>((t.first_byte_ns > 0 ? t.first_byte_ns : end) - t.start_ns));
    stats_.latency_ns.record(static_cast<uint64_t>(end - t.start_ns));
    stats_.bytes_sent += t.sent;
    if (http >= 200 && http < 300) stats_.bytes_received += t.received;
  }

  // How the try's transport went: curl's code, an answer longer than asked (kOther), a stall (kTimeout:
  // t->stalled says which).
  S3Transport transport_of_try(Transfer* t, CURLcode cc) const {
    S3Transport tr = transport_of(cc);
    if (t->overflow) tr = S3Transport::kOther;
    // curl's own timeout is its connect timeout or the low-speed limit; only the latter says "too slow".
    if (cc == CURLE_OPERATION_TIMEDOUT && std::string_view(t->errbuf).starts_with("Operation too slow")) {
      t->stalled = std::string(t->errbuf) + " (s3.low_speed_limit, s3.low_speed_time)";
    }
    if (!t->stalled.empty()) tr = S3Transport::kTimeout;
    return tr;
  }

  void report_stall(const Transfer& t, bool retry) const {
    cfg_.on_stall("s3: " + std::string(s3_method_name(t.req.method)) + " s3://" + cfg_.bucket + "/" +
                  t.req.key + " at " + cfg_.endpoint + ": " + t.stalled +
                  (retry ? "; retry " + std::to_string(t.attempt) + " of " + std::to_string(cfg_.max_retries)
                         : "; no retries left"));
  }

  // The request's result once no retry is left: its answer, or the error that names the request.
  S3Result result_of(Transfer* t, CURLcode cc, S3Transport tr, long http, curl_off_t length) const {
    S3Result r;
    r.tag = t->req.tag;
    r.http_status = http;
    r.etag = std::move(t->etag);
    r.content_length = length;
    const unsigned retries = t->attempt - 1;
    S3ErrorContext ctx{s3_method_name(t->req.method), s3_endpoint_used(cfg_), cfg_.bucket, t->req.key,
                       creds_.key_id};
    if (t->overflow) {
      r.status = Status::IoError(ctx.method + " s3://" + cfg_.bucket + "/" + t->req.key +
                                 ": the answer is longer than the " + std::to_string(t->req.dest_len) +
                                 " bytes asked for");
    } else if (tr != S3Transport::kOk) {
      r.status = s3_transport_error(ctx, tr,
                                    !t->stalled.empty()    ? t->stalled.c_str()
                                    : t->errbuf[0] != '\0' ? t->errbuf
                                                           : curl_easy_strerror(cc),
                                    retries);
    } else if (http < 200 || http >= 300) {
      r.status = s3_http_error(ctx, http, t->text, retries);
    }
    r.bytes = t->req.method == S3Method::kPut || t->req.method == S3Method::kPost ? t->sent : t->received;
    r.text = std::move(t->text);
    return r;
  }

  S3Config cfg_;
  S3Credentials creds_;
  std::string sigv4_;
  std::string url_;  // curl copies string options, so one buffer serves every start()
  std::string range_;
  CURLM* multi_ = nullptr;
  std::deque<std::unique_ptr<Transfer>> waiting_;
  std::vector<std::unique_ptr<Transfer>> running_;
  std::vector<std::unique_ptr<Transfer>> backoff_;
  std::vector<CURL*> idle_;
  RequestStats stats_;
  const std::atomic<bool>* stop_ = nullptr;
};

}  // namespace

Status make_s3_client(const S3Config& cfg, const S3Credentials& creds, std::unique_ptr<S3Client>* out) {
  if (Status s = check_s3_endpoint(cfg.endpoint); !s.ok()) return s;
  if (cfg.connections == 0) return Status::Invalid("connections: expected at least 1");
  global_init();
  *out = std::make_unique<CurlS3Client>(cfg, creds);
  return Status::Ok();
}

}  // namespace iofab
