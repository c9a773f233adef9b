// Double precision and 2-D: the four algorithm classes for double 3-D,
// float 2-D and double 2-D, and the front door, a reused PairFinder and
// Index with every algorithm for those types and float 3-D, against the
// scalar reference. The test bodies are templates in generic_types.hpp; each
// type is instantiated in its own file (generic_<type>.cpp, float 3-D here)
// so that the build compiles them in parallel, and this file collects them.
#include "generic_types.hpp"

namespace bptest {
namespace generic {

TypeCases float3d_cases() { return type_cases<float, 3>(false); }

namespace {

std::vector<TypeCases> all_types() {
    return {float3d_cases(), double3d_cases(), float2d_cases(), double2d_cases()};
}

std::vector<GenericCase> generic_cases() {
    std::vector<GenericCase> out;
    for (const TypeCases& t : all_types()) out.insert(out.end(), t.algorithms.begin(), t.algorithms.end());
    return out;
}

std::vector<FrontDoorCase> front_door_cases() {
    std::vector<FrontDoorCase> out;
    for (const TypeCases& t : all_types()) out.push_back(t.front_door);
    return out;
}

class GenericAlgorithmTest : public ::testing::TestWithParam<GenericCase> {};

TEST_P(GenericAlgorithmTest, RandomScenes) { GetParam().random_scenes(); }
TEST_P(GenericAlgorithmTest, Large) { GetParam().large(); }
TEST_P(GenericAlgorithmTest, Adversarial) { GetParam().adversarial(); }
TEST_P(GenericAlgorithmTest, VoidCallbackStreamsEverything) { GetParam().void_callback(); }
TEST_P(GenericAlgorithmTest, BudgetAndStop) { GetParam().budget_and_stop(); }
TEST_P(GenericAlgorithmTest, CopyAndMove) { GetParam().copy_and_move(); }

INSTANTIATE_TEST_SUITE_P(GenericTypes, GenericAlgorithmTest, ::testing::ValuesIn(generic_cases()), ParamName());

class GenericFrontDoorTest : public ::testing::TestWithParam<FrontDoorCase> {};

TEST_P(GenericFrontDoorTest, EveryAlgorithm) { GetParam().run(); }

INSTANTIATE_TEST_SUITE_P(GenericTypes, GenericFrontDoorTest, ::testing::ValuesIn(front_door_cases()), ParamName());

}  // namespace
}  // namespace generic
}  // namespace bptest
