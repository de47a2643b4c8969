// (in progress)
#include "field.cuh"
