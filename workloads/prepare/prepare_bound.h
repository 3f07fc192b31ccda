// Which stage of the prepare pipeline bounds it: storage read, CPU (the
// transform) or storage write, named from each stage's busy fraction and
// the time its neighbours waited on the queues (docs/phases/prepare.md).
//
// The rule: a stage's threads are busy (in their read, transform or write
// call), waiting for input (the queue before them empty) or waiting for room
// (the queue after them full). The slowest stage is the one whose threads
// are busiest; the stages before it wait for room, the ones after it wait
// for input. So the bound is the stage with the highest busy fraction; where
// two are within kBoundTie of each other, the one whose neighbours waited on
// it longer (the stage before waiting for room, the stage after for input).
// No stage busy kBoundMinBusy of its time: `none` (nothing was saturated: the
// run was mostly pipeline fill and drain, or too short to tell).
//
// Pure logic; thread-safe.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace iofab {

constexpr double kBoundTie = 0.02;
constexpr double kBoundMinBusy = 0.5;

enum class PrepareStage { kRead, kTransform, kWrite };

// One stage's time, summed over its threads (and ranks).
struct StageFigures {
  uint64_t threads = 0;
  double thread_seconds = 0;      // each thread's life in the timed run, summed: the fractions' denominator
  double busy_seconds = 0;        // in the stage's own work (the read, the transform, the write and fsync)
  double wait_input_seconds = 0;  // waiting for an item (the queue before it empty)
  double wait_room_seconds = 0;   // waiting for room (the queue after it full)
  double cpu_seconds = 0;         // the threads' CPU time (user + system)
  uint64_t items = 0;             // samples handled

  double busy_fraction() const { return thread_seconds > 0 ? busy_seconds / thread_seconds : 0; }
  double wait_input_fraction() const { return thread_seconds > 0 ? wait_input_seconds / thread_seconds : 0; }
  double wait_room_fraction() const { return thread_seconds > 0 ? wait_room_seconds / thread_seconds : 0; }
  void merge(const StageFigures& o);
  nlohmann::json to_json() const;
};

const char* stage_name(PrepareStage s);   // "read", "transform", "write"
const char* stage_label(PrepareStage s);  // "storage read", "CPU (transform)", "storage write"

struct BoundBy {
  std::string stage;  // "read", "transform", "write" or "none"
  std::string label;  // "storage read", "CPU (transform)", "storage write", "none"
  std::string why;    // the figures that named it, in words
};

BoundBy decide_bound_by(const StageFigures& read, const StageFigures& transform, const StageFigures& write);

}  // namespace iofab
