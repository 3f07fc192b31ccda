# IOR write, direct (ci/bench/ior-write.sh).
IOR_DIRECT=1 source "$(dirname "$0")/ior-write.sh"
