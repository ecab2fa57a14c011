#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build: run from the source root (the Dockerfile's
# WORKDIR) with the builder's CXX, CXXFLAGS, LIB_FUZZING_ENGINE and OUT. Needs
# only the compiler: the targets use the reference library and nothing else,
# so no dependency is rebuilt with the builder's sanitizers and libc++.
# For each target, $OUT gets the executable, <target>.dict, <target>.options and
# <target>_seed_corpus.zip.

SRC_ROOT=$(pwd)
OBJ=${WORK:-$(mktemp -d)}/kiln-fuzz-obj
mkdir -p "$OBJ" "$OUT"
JOBS=${KILN_BUILD_JOBS:-2}

COMPILE=($CXX $CXXFLAGS -std=c++20 -I"$SRC_ROOT/reference/include" -I"$SRC_ROOT/fuzz")
TARGETS=(fuzz_decode fuzz_roundtrip fuzz_differential fuzz_structure)
# The reference library and what several targets share (not the replay main:
# here the engine provides main).
LIBRARY_SOURCES=("$SRC_ROOT"/reference/src/*.cpp fuzz/oracles.cpp fuzz/lazy_reader.cpp
                 fuzz/description_tools.cpp)

objects=()
pids=()
# Object names are the sources' base names: reference/src and fuzz/ share none.
for source in "${LIBRARY_SOURCES[@]}" "${TARGETS[@]/#/fuzz/}"; do
  source=${source%.cpp}.cpp
  "${COMPILE[@]}" -c "$source" -o "$OBJ/$(basename "$source" .cpp).o" &
  pids+=($!)
  if (( ${#pids[@]} >= JOBS )); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for pid in "${pids[@]}"; do wait "$pid"; done

for source in "${LIBRARY_SOURCES[@]}"; do objects+=("$OBJ/$(basename "$source" .cpp).o"); done
ar rcs "$OBJ/libkiln_fuzz.a" "${objects[@]}"

for target in "${TARGETS[@]}"; do
  $CXX $CXXFLAGS "$OBJ/$target.o" "$OBJ/libkiln_fuzz.a" $LIB_FUZZING_ENGINE -o "$OUT/$target"
  cp fuzz/kiln.dict "$OUT/$target.dict"
  cp "fuzz/$target.options" "$OUT/$target.options"
  rm -f "$OUT/${target}_seed_corpus.zip"
  (cd "corpus/$target" && zip -q -X "$OUT/${target}_seed_corpus.zip" -- *)
done
