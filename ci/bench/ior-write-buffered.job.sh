# IOR write, buffered (ci/bench/ior-write.sh).
IOR_DIRECT=0 source "$(dirname "$0")/ior-write.sh"
