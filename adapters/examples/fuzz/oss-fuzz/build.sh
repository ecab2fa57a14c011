#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build of a project that fuzzes its Kiln
# implementation (laid out as adapters/examples/fuzz/): the suite, built from
# $SRC/kiln-conformance with the builder's flags and installed in $WORK, unless
# KILN_CONFORMANCE_PREFIX names one already installed; then the project at
# $SRC/project (or PROJECT_SRC) against it, its fuzzers, dictionaries and seed
# corpora copied to $OUT. The suite links Debian's C++ libraries (yaml-cpp,
# RE2), built against libstdc++, so the builder's libc++ is left out.
export CXXFLAGS="${CXXFLAGS/-stdlib=libc++/}"
# The suite's program makes the seed corpora at build time: no leak report at its exit.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
prefix=${KILN_CONFORMANCE_PREFIX:-$WORK/kiln-conformance}
if [ -z "${KILN_CONFORMANCE_PREFIX:-}" ]; then
  cmake -S "$SRC/kiln-conformance" -B "$WORK/kiln-build" -DCMAKE_BUILD_TYPE=None -DBUILD_TESTING=OFF \
    -DKILN_BUILD_BENCH=OFF -DCMAKE_INSTALL_PREFIX="$prefix"
  cmake --build "$WORK/kiln-build" -j"$(nproc)" && cmake --install "$WORK/kiln-build"
fi
cmake -S "${PROJECT_SRC:-$SRC/project}" -B "$WORK/build" -DCMAKE_BUILD_TYPE=None -DCMAKE_PREFIX_PATH="$prefix"
cmake --build "$WORK/build" -j"$(nproc)"
for fuzzer in my_kiln_fuzzer my_hurray_fuzzer; do
  cp "$WORK/build/$fuzzer" "$WORK/build/$fuzzer.dict" "$WORK/build/${fuzzer}_seed_corpus.zip" "$OUT/"
done
