// What a loader does with a safetensors file's bytes as they stream in, front to back: reads the 8-byte
// header length, parses the JSON header (parse_safetensors_header: dtypes, shapes, offsets that tile the
// data exactly), takes the seed from its __metadata__, then checks every tensor byte against its content
// (tensor_content's, keyed by the tensor's name). The first problem is kept and checking stops there;
// the bytes still count as read.
//
// Thread-safety: one check per file per worker thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/core/status.h"
#include "workloads/model_load/model_files.h"

namespace iofab {

class SafetensorsCheck {
 public:
  // file_bytes: the file's size (what the loader's stat says).
  explicit SafetensorsCheck(uint64_t file_bytes) : file_bytes_(file_bytes) {}

  // The next len bytes of the file, which start at offset (in order: offset is where the last ended).
  void feed(const unsigned char* data, size_t len, uint64_t offset);
  // After the last byte: Ok when the header parsed and every tensor byte was its content; else the first
  // problem, naming the tensor and its byte where one differs.
  Status finish() const;

  uint64_t header_ns() const { return header_ns_; }  // reading the length and parsing the JSON
  uint64_t verify_ns() const { return verify_ns_; }
  uint64_t verified_bytes() const { return verified_bytes_; }
  uint64_t tensors() const { return header_.tensors.size(); }

 private:
  void take_header(const unsigned char* data, size_t len, size_t* used);
  void check_data(const unsigned char* data, size_t len, uint64_t offset);

  uint64_t file_bytes_;
  uint64_t fed_ = 0;         // bytes seen so far
  std::string head_;         // the length and the JSON, until parsed
  uint64_t header_len_ = 0;  // the JSON's bytes, once the length is read
  bool parsed_ = false;
  ParsedHeader header_;
  uint64_t seed_ = 0;
  size_t tensor_ = 0;  // the tensor the next data byte belongs to
  Status problem_;
  uint64_t header_ns_ = 0;
  uint64_t verify_ns_ = 0;
  uint64_t verified_bytes_ = 0;
};

}  // namespace iofab
