// `iofab clean --target s3://bucket/prefix`: the objects and unfinished multipart uploads a killed run
// left under <prefix>/iofab-<run id>/, and nothing else in the bucket.
#include <map>

#include "driver/suite/suite.h"
#include "driver/targets/clean_target.h"
#include "driver/targets/s3/s3_run.h"
#include "driver/targets/s3/s3_target.h"
#include "harness/core/units.h"
#include "harness/fs/run_dir.h"
#include "harness/s3/s3_credentials.h"
#include "harness/s3/s3_uploads.h"

namespace iofab {
namespace {

// What one run prefix holds.
struct RunKeys {
  std::vector<std::string> keys;
  uint64_t bytes = 0;
  std::vector<S3Upload> uploads;
  bool kept = false;  // its run had --keep (the kKeptMarkerName object)
};

// The run folder's name of key below base ("iofab-<run id>"), or "" for a key of no run prefix.
std::string run_name_of(const std::string& key, const std::string& base) {
  if (!key.starts_with(base)) return "";
  const std::string rest = key.substr(base.size());
  const auto slash = rest.find('/');
  if (slash == std::string::npos) return "";
  std::string name = rest.substr(0, slash);
  return is_run_dir_name(name) ? name : "";
}

// *unlisted: why the server's unfinished uploads could not be listed ("" when they were).
Status gather(S3Client& c, const std::string& base, std::map<std::string, RunKeys>* runs,
              std::string* unlisted) {
  std::vector<S3Object> objects;
  if (Status s = s3_list(c, base + "iofab-", &objects); !s.ok()) return s;
  for (S3Object& o : objects) {
    const std::string name = run_name_of(o.key, base);
    if (name.empty()) continue;
    RunKeys& r = (*runs)[name];
    r.kept = r.kept || o.key == base + name + "/" + kKeptMarkerName;
    r.bytes += o.size;
    r.keys.push_back(std::move(o.key));
  }
  std::vector<S3Upload> uploads;
  if (Status s = s3_list_uploads(c, base + "iofab-", &uploads); !s.ok()) {
    if (s.code() != Status::Code::kUnavailable) return s;
    *unlisted = s.message();
  }
  for (S3Upload& u : uploads) {
    const std::string name = run_name_of(u.key, base);
    if (!name.empty()) (*runs)[name].uploads.push_back(std::move(u));
  }
  return Status::Ok();
}

void print_run(const std::string& name, const RunKeys& r, std::ostream& out) {
  out << "  " << name << "/  " << r.keys.size() << " object" << (r.keys.size() == 1 ? "" : "s") << ", "
      << units::format_bytes(static_cast<double>(r.bytes)) << ", " << r.uploads.size() << " unfinished upload"
      << (r.uploads.size() == 1 ? "" : "s") << "\n";
}

// Aborts the uploads first (their parts hold space and no listing shows them), then deletes the keys.
Status remove_run(S3Client& c, const RunKeys& r) {
  Status first;
  for (const S3Upload& u : r.uploads) {
    if (Status s = s3_abort_upload(c, u); !s.ok())
      first.update(Status::IoError("abort upload of " + u.key + ": " + s.message()));
  }
  first.update(s3_delete_keys(c, r.keys));
  return first;
}

// The bucket's client for args.target, with the suite's (or --set's) s3 settings; 0, or the exit code
// with the error written to err.
int open_clean_client(const CleanArgs& args, std::ostream& err, std::unique_ptr<S3Client>* client,
                      std::string* prefix) {
  Suite suite;
  if (Status s = load_suite(args.suite, args.sets, &suite); !s.ok()) {
    err << "iofab clean: " << s.message() << "\n";
    return 2;
  }
  TargetInfo info;
  S3RunTarget t;
  const S3Settings settings = s3_settings_of(suite);
  if (Status s = prepare_s3_target(args.target, settings, process_env(), &info, &t); !s.ok()) {
    err << "iofab clean: " << s.message()
        << (settings.endpoint.empty() ? " (--suite SUITE with its \"s3\" settings, or --set s3.endpoint=URL)"
                                      : "")
        << "\n";
    return s.code() == Status::Code::kInvalidArgument ? 2 : 3;
  }
  if (Status s = make_s3_client(t.target->config, t.target->creds, client); !s.ok()) {
    err << "iofab clean: " << s.message() << "\n";
    return 3;
  }
  *prefix = t.prefix;
  return 0;
}

// The runs to remove: all but those kept with --keep (listed, and left alone) unless include_kept.
std::map<std::string, RunKeys> runs_to_remove(std::map<std::string, RunKeys> runs, const CleanArgs& args,
                                              std::ostream& out) {
  std::map<std::string, RunKeys> doomed;
  bool any_kept = false;
  for (auto& [name, r] : runs) {
    if (r.kept && !args.include_kept) {
      if (!any_kept)
        out << "run prefixes under " << args.target
            << " kept with --keep, left alone (--include-kept removes them too):\n";
      any_kept = true;
      print_run(name, r, out);
      continue;
    }
    doomed.emplace(name, std::move(r));
  }
  return doomed;
}

// Removes each run, going on past one that fails; 0, or 3 when any failed.
int remove_runs(S3Client& client, const std::map<std::string, RunKeys>& doomed, const CleanArgs& args,
                std::ostream& out, std::ostream& err) {
  int rc = 0;
  for (const auto& [name, r] : doomed) {
    if (Status s = remove_run(client, r); !s.ok()) {
      err << "iofab clean: " << args.target << "/" << name << "/: " << s.message() << "\n";
      rc = 3;
      continue;
    }
    out << "removed " << args.target << "/" << name << "/\n";
  }
  return rc;
}

}  // namespace

int clean_s3_target(const CleanArgs& args, bool interactive, std::istream& in, std::ostream& out,
                    std::ostream& err) {
  std::unique_ptr<S3Client> client;
  std::string prefix;
  if (int rc = open_clean_client(args, err, &client, &prefix); rc != 0) return rc;
  const std::string base = prefix.empty() ? "" : prefix + "/";
  std::map<std::string, RunKeys> runs;
  std::string unlisted;
  if (Status s = gather(*client, base, &runs, &unlisted); !s.ok()) {
    err << "iofab clean: " << args.target << ": " << s.message() << "\n";
    return 3;
  }
  if (!unlisted.empty()) {
    out << "note: this server does not list unfinished multipart uploads (" << unlisted
        << "): any under the run prefixes stay; the server's own tools show them\n";
  }
  const std::map<std::string, RunKeys> doomed = runs_to_remove(std::move(runs), args, out);
  if (doomed.empty()) {
    out << "no run prefixes under " << args.target << "\n";
    return 0;
  }
  // An object store has no lock: a live run's keys look like a killed run's.
  out << "run prefixes under " << args.target
      << " (an object store has no run lock: clean cannot tell a live run's keys from a killed one's; "
         "remove them only when no run writes there):\n";
  size_t keys = 0, uploads = 0;
  for (const auto& [name, r] : doomed) {
    print_run(name, r, out);
    keys += r.keys.size();
    uploads += r.uploads.size();
  }
  const std::string what = std::to_string(doomed.size()) + " run prefix" + (doomed.size() == 1 ? "" : "es") +
                           " (" + std::to_string(keys) + " objects, " + std::to_string(uploads) +
                           " unfinished uploads)";
  if (!confirm_removal(what, doomed.size(), args.yes, interactive, in, out)) return 0;
  return remove_runs(*client, doomed, args, out, err);
}

}  // namespace iofab
