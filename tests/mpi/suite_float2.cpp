// 2-D cases of the MPI test (BasicDistributedPairFinder<float, 2>).
#include "suite.hpp"

namespace mpitest {

void run_float2() {
    generic_scenes<float, 2>();
    two_sets<float, 2>("random x slabs", random_scene<float, 2>(600, 140, 0, 50, 0, 6), slabs<float, 2>(400, 141));
    budget<float, 2>("dense random", random_scene<float, 2>(800, 61, 0, 10, 0, 2));
}

}  // namespace mpitest
