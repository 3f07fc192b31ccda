// train_read's cache-tier params (cache_dir, cache_size, cache_source_epoch): read and checked when the
// suite is loaded, so a bad one stops the run before anything is written.
#pragma once

namespace iofab {

class ParamReader;
struct TrainReadParams;

// Reads the cache-tier keys into *p; p->engine must already be read (an engine that moves no data has
// nothing to cache).
void read_cache_params(ParamReader& r, TrainReadParams* p);

}  // namespace iofab
