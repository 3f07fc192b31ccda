// An engine added beside the engine table's rows (engine_table.cc) for as long as its handle lives: the
// engine of an object store that only the tests build (tests/harness/mem_object_store/: its objects
// live in memory, and only its own engine reads them). iofab adds none, so the engines a user lists
// (`iofab list`), names in a suite and gets from "auto" are the table's rows alone.
//
// While it lives, make_engine, is_engine_name and list_engines know it as they know a row. Added and
// removed while no engine is being made (a test's set-up and tear-down).
#pragma once

#include <memory>
#include <string>

#include "harness/core/status.h"
#include "harness/engines/engine.h"

namespace iofab {

class AddedEngine {
 public:
  using Make = Status (*)(const EngineOptions& opts, std::unique_ptr<Engine>* out);
  // name must not be a row's already (a mistake in the test: it aborts, saying so). It takes no O_DIRECT
  // and maps nothing; description and name must outlive the handle (string literals).
  AddedEngine(const char* name, const char* description, Make make);
  ~AddedEngine();
  AddedEngine(const AddedEngine&) = delete;
  AddedEngine& operator=(const AddedEngine&) = delete;

 private:
  std::string name_;
};

}  // namespace iofab
