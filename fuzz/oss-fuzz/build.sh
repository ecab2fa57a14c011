#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build, run from the source root (the Dockerfile's
# WORKDIR) with the builder's CC, CXX, CXXFLAGS, LIB_FUZZING_ENGINE, WORK and OUT.
# The build itself lives in fuzz/CMakeLists.txt (KILN_FUZZ_ENGINE=oss-fuzz), where
# it is tested; build type None adds no flags to the builder's. This only configures, builds the package and copies it to $OUT:
# each target with <target>.dict, <target>.options and <target>_seed_corpus.zip.
build=${WORK:-$(mktemp -d)}/kiln-fuzz-build
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=None -DKILN_FUZZ_ENGINE=oss-fuzz \
  -DBUILD_TESTING=OFF -DKILN_BUILD_FUZZERS=ON -DKILN_BUILD_ADAPTERS=OFF \
  -DKILN_BUILD_RUNNER=OFF -DKILN_BUILD_BENCH=OFF
cmake --build "$build" --target fuzz_package -j"${KILN_BUILD_JOBS:-$(nproc)}"
cp "$build"/fuzz/package/* "$OUT"/
