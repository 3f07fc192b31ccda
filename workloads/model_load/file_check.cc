#include "workloads/model_load/file_check.h"

#include <algorithm>

#include "harness/engines/io_driver.h"
#include "workloads/checkpoint/tensor_content.h"

namespace iofab {

void SafetensorsCheck::feed(const unsigned char* data, size_t len, uint64_t offset) {
  if (offset != fed_ && problem_.ok()) {
    problem_ = Status::Internal("bytes at " + std::to_string(offset) + " came before those at " +
                                std::to_string(fed_));
  }
  fed_ = offset + len;
  if (!problem_.ok()) return;
  size_t used = 0;
  if (!parsed_) take_header(data, len, &used);
  if (problem_.ok() && parsed_ && used < len) check_data(data + used, len - used, offset + used);
}

void SafetensorsCheck::take_header(const unsigned char* data, size_t len, size_t* used) {
  const uint64_t t0 = now_ns();
  while (*used < len && !parsed_ && problem_.ok()) {
    const uint64_t want = head_.size() < 8 ? 8 : 8 + header_len_;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(len - *used, want - head_.size()));
    head_.append(reinterpret_cast<const char*>(data + *used), n);
    *used += n;
    if (head_.size() == 8 && header_len_ == 0) {
      for (int i = 7; i >= 0; --i) header_len_ = header_len_ << 8 | static_cast<unsigned char>(head_[i]);
      if (header_len_ == 0 || header_len_ > kMaxSafetensorsHeader || 8 + header_len_ > file_bytes_) {
        problem_ = Status::Invalid("header length " + std::to_string(header_len_) + " is not between 1 and " +
                                   std::to_string(std::min(kMaxSafetensorsHeader, file_bytes_ - 8)) +
                                   " (the file's bytes after it)");
      }
    } else if (header_len_ > 0 && head_.size() == 8 + header_len_) {
      problem_ =
          parse_safetensors_header(std::string_view(head_).substr(8), file_bytes_ - head_.size(), &header_);
      if (problem_.ok() && !metadata_seed(header_.metadata, &seed_)) {
        problem_ = Status::Invalid(
            "header: __metadata__ has no iofab_seed: not a file iofab wrote, so its "
            "bytes cannot be checked");
      }
      parsed_ = true;
    }
  }
  header_ns_ += now_ns() - t0;
}

void SafetensorsCheck::check_data(const unsigned char* data, size_t len, uint64_t offset) {
  const uint64_t t0 = now_ns();
  const uint64_t start = head_.size();
  size_t pos = 0;
  while (pos < len && problem_.ok()) {
    const uint64_t at = offset + pos - start;  // in the data
    while (tensor_ < header_.tensors.size() && header_.tensors[tensor_].end <= at) ++tensor_;
    if (tensor_ == header_.tensors.size()) {
      problem_ = Status::Invalid("bytes past the last tensor at " + std::to_string(offset + pos));
      break;
    }
    const SafetensorsTensor& t = header_.tensors[tensor_];
    const size_t n = static_cast<size_t>(std::min<uint64_t>(len - pos, t.end - at));
    uint64_t bad = 0;
    if (!check_tensor_bytes(seed_, 0, model_tensor_key(t.name), at - t.begin, data + pos, n, &bad)) {
      problem_ = Status::Invalid("corrupt: tensor " + t.name + " differs at its byte " + std::to_string(bad) +
                                 " (file offset " + std::to_string(start + t.begin + bad) + ")");
      break;
    }
    verified_bytes_ += n;
    pos += n;
  }
  verify_ns_ += now_ns() - t0;
}

Status SafetensorsCheck::finish() const {
  if (!problem_.ok()) return problem_;
  if (fed_ != file_bytes_) {
    return Status::Invalid("read " + std::to_string(fed_) + " of its " + std::to_string(file_bytes_) +
                           " bytes");
  }
  if (!parsed_) return Status::Invalid("ends inside its header");
  return Status::Ok();
}

}  // namespace iofab
