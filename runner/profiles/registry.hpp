// The profile registry as the runner's own code sees it: the public list and
// registration (kiln/conformance/profile_registry.hpp) with the fuzz engine's
// types complete, for the callers of ProfileModule::make_fuzzer.
#pragma once

#include "fuzz/fuzz_engine.hpp"
#include "kiln/conformance/profile_registry.hpp"
