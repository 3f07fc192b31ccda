// One translation unit: cufile_abi_check.h after the cufile.h the include path gives.
#include <cufile.h>

#include "harness/engines/cufile_abi_check.h"
