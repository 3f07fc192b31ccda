# IOR read, buffered (ci/bench/ior-read.sh).
IOR_DIRECT=0 source "$(dirname "$0")/ior-read.sh"
