# IOR read, direct (ci/bench/ior-read.sh).
IOR_DIRECT=1 source "$(dirname "$0")/ior-read.sh"
