// double 3-D cases of the MPI test: built-in scenes converted, the
// adversarial scenes (1e7 offsets exact, cuts exactly representable), frames.
#include "suite.hpp"

namespace mpitest {

void run_double3() {
    namespace sc = broadphase_fixtures;
    one_set<double, 3>("scenes::mixed", convert<double, 3>(sc::mixed(1200)));
    one_set<double, 3>("scenes::slabs_and_outliers", convert<double, 3>(sc::slabs_and_outliers(600)));
    generic_scenes<double, 3>();
    frames<double, 3>();
}

}  // namespace mpitest
