// StoreFile: a Store's open file as the phases and the engines see it. A
// POSIX store's file is a descriptor, which descriptor engines (psync,
// io_uring, cufile) use as it is, so their path costs nothing more than an
// int. An object store's file has no descriptor: it is a FileObject (an S3
// key, and for a file being written its upload in progress), opaque to all
// but the engine of that store (Engine::add_store_file).
//
// It lives here, below harness/store, because engines take it.
#pragma once

#include <memory>
#include <string>

namespace iofab {

// What an object store hands its engine for one file. The store and its engine agree on the type.
class FileObject {
 public:
  FileObject() = default;
  FileObject(const FileObject&) = delete;
  FileObject& operator=(const FileObject&) = delete;
  virtual ~FileObject() = default;
};

// An open file. The store's descriptor is closed when the handle goes; an object is shared with the
// engine that was given it, and lives as long as either holds it.
class StoreFile {
 public:
  StoreFile() = default;
  StoreFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  StoreFile(std::shared_ptr<FileObject> object, std::string path) : object_(std::move(object)), path_(std::move(path)) {}
  StoreFile(StoreFile&& o) noexcept : fd_(o.fd_), object_(std::move(o.object_)), path_(std::move(o.path_)) { o.fd_ = -1; }
  StoreFile& operator=(StoreFile&& o) noexcept;
  StoreFile(const StoreFile&) = delete;
  StoreFile& operator=(const StoreFile&) = delete;
  ~StoreFile();

  // The descriptor engines use (Engine::add_file); -1 when not open, or for an object.
  int fd() const { return fd_; }
  // An object store's file; nullptr for a descriptor.
  const std::shared_ptr<FileObject>& object() const { return object_; }
  // The path below the store's root, for messages.
  const std::string& path() const { return path_; }
  bool is_open() const { return fd_ >= 0 || object_ != nullptr; }
  // Hands the descriptor over to the caller, who closes it.
  int release();

 private:
  int fd_ = -1;
  std::shared_ptr<FileObject> object_;
  std::string path_;
};

}  // namespace iofab
