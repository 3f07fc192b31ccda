// What the phases ask of an engine is a column of its row (harness/engines/engine_table.cc), never its
// name: whether it moves data, and how it runs here when that changes what the figures mean (cuFile).
#include <gtest/gtest.h>

#include "harness/engines/cufile_engine.h"
#include "harness/engines/engine_choice.h"

namespace iofab {
namespace {

TEST(EngineRows, TheModeIsCufilesAlone) {
  ASSERT_TRUE(engine_mode_text("cufile").has_value());
  EXPECT_EQ(*engine_mode_text("cufile"), cufile_mode_text());
  for (const char* name : {"psync", "io_uring", "mmap", "null", "s3", "auto", "no-such-engine"}) {
    EXPECT_FALSE(engine_mode_text(name).has_value()) << name;
  }
}

TEST(EngineRows, OnlyTheNullEngineMovesNoData) {
  EXPECT_FALSE(engine_moves_data("null"));
  for (const char* name : {"psync", "io_uring", "mmap", "cufile", "auto"})
    EXPECT_TRUE(engine_moves_data(name)) << name;
}

}  // namespace
}  // namespace iofab
