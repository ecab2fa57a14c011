#!/usr/bin/env bash
# ctest install-and-fuzz-example: `cmake --install` into a scratch prefix, then
# adapters/examples/fuzz built against that prefix alone, as an implementer
# builds it: with clang-14 and libFuzzer (else the replay programs of another
# compiler), and again through its oss-fuzz/build.sh with OSS-Fuzz's variables.
# Over the reference its fuzzers find nothing; over a catalogue mutant they
# find the bug, and the crash file, through `cases from-input`, becomes a case
# that `cases check` accepts, that fails the mutant and passes the reference.
#   install_and_fuzz_example.sh CMAKE BUILD_DIR EXAMPLE_SOURCE MUTANTS_LIBRARY MUTANTS_INCLUDE MUTANT_ADAPTER [CCACHE]
set -euo pipefail
cmake=$1 build=$2 example=$3 mutants_library=$4 mutants_include=$5 mutant_adapter=$6 ccache=${7:-}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix
"$cmake" --install "$build" --prefix "$prefix" >/dev/null
conformance=$prefix/bin/kiln-conformance

launcher=()
if [ -n "$ccache" ]; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER="$ccache")
  export CCACHE_BASEDIR=$scratch
fi
if command -v clang++-14 >/dev/null; then
  engine=libfuzzer
  flags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined"
  compiler=(-DCMAKE_CXX_COMPILER=clang++-14 "-DCMAKE_CXX_FLAGS=$flags")
else
  engine=replay
  compiler=()
fi
echo "example: building against $prefix ($engine)"
"$cmake" -S "$example" -B "$scratch/example" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=None \
  -DKILN_EXAMPLE_MUTANTS_LIBRARY="$mutants_library" -DKILN_EXAMPLE_MUTANTS_INCLUDE_DIR="$mutants_include" \
  "${compiler[@]}" "${launcher[@]}" >"$scratch/configure.log" || { cat "$scratch/configure.log" >&2; exit 1; }
"$cmake" --build "$scratch/example" -j2 >"$scratch/build.log" || { tail -n 40 "$scratch/build.log" >&2; exit 1; }
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1

# fuzz FUZZER PROFILE LOG: a short run from its seed corpus (a copy: libFuzzer adds to the folder).
fuzz() {
  local fuzzer=$1 log=$2
  rm -rf "$scratch/corpus-$fuzzer" && cp -r "$scratch/example/${fuzzer}_seed_corpus" "$scratch/corpus-$fuzzer"
  mkdir -p "$scratch/artifacts-$fuzzer"
  if [ "$engine" = libfuzzer ]; then
    (cd "$scratch" && "$scratch/example/$fuzzer" -runs=4000 -seed=1 -max_len=4096 -timeout=25 \
       -dict="$scratch/example/$fuzzer.dict" -artifact_prefix="$scratch/artifacts-$fuzzer/" \
       "$scratch/corpus-$fuzzer" >"$log" 2>&1)
  else
    # The replay program names the failing input last (a mutant's in a file of the working folder).
    (cd "$scratch" && "$scratch/example/$fuzzer" "$scratch/corpus-$fuzzer" >"$log" 2>&1)
  fi
}

for fuzzer in my_kiln_fuzzer my_hurray_fuzzer; do
  if ! fuzz "$fuzzer" "$scratch/$fuzzer.log"; then
    tail -n 40 "$scratch/$fuzzer.log" >&2
    echo "$fuzzer: a finding over the reference" >&2
    exit 1
  fi
  echo "$fuzzer over the reference: no finding ($(grep -aoE 'Done [0-9]+ runs|[0-9]+ run\(s\)' "$scratch/$fuzzer.log" | tail -n 1))"
done

# mutant FUZZER PROFILE MUTANT: found, written as a case, the case kills it.
mutant() {
  local fuzzer=$1 profile=$2 name=$3 log=$scratch/$1-$3.log
  if KILN_MUTANT=$name fuzz "$fuzzer" "$log"; then
    tail -n 20 "$log" >&2
    echo "$fuzzer: mutant $name not found" >&2
    exit 1
  fi
  if ! grep -q "disagrees with the reference" "$log"; then
    tail -n 40 "$log" >&2
    echo "$fuzzer: mutant $name ended the run without a disagreement" >&2
    exit 1
  fi
  local input
  if [ "$engine" = libfuzzer ]; then
    input=$(find "$scratch/artifacts-$fuzzer" -name 'crash-*' | head -n 1)
  else
    input=$(grep -ao 'replay: failing input: .*' "$log" | tail -n 1 | cut -d' ' -f4-)
    [[ "$input" = /* ]] || input=$scratch/$input
  fi
  [ -n "$input" ] && [ -f "$input" ] || { echo "$fuzzer: no input file for the finding" >&2; exit 1; }
  local cases=$scratch/cases-$name
  "$conformance" cases from-input "$input" --profile "$profile" --out "$cases"
  "$conformance" cases check --cases "$cases" >/dev/null
  if "$conformance" run --cases "$cases" --adapter "$mutant_adapter --mutant $name" --no-progress \
       --generated 0 --generated-out "$scratch/generated" >"$scratch/run-$name.log" 2>&1; then
    cat "$scratch/run-$name.log" >&2
    echo "the case written for $name does not fail it" >&2
    exit 1
  fi
  "$conformance" run --cases "$cases" --adapter "$prefix/bin/kiln-reference-adapter" --no-progress \
    --generated 0 >"$scratch/run-reference-$name.log" 2>&1 || {
    cat "$scratch/run-reference-$name.log" >&2; echo "the case written for $name fails the reference" >&2; exit 1; }
  echo "mutant $name: found by $fuzzer, its case fails it and passes the reference"
}
mutant mutant_kiln_fuzzer kiln-v2 magic-unchecked
mutant mutant_hurray_fuzzer hurray-elements hurray-nibble-high-first

# OSS-Fuzz's way: build.sh with the builder's variables, against the same prefix.
if [ "$engine" = libfuzzer ]; then
  mkdir -p "$scratch/oss/out" "$scratch/oss/work"
  (export CC=clang-14 CXX=clang++-14 CFLAGS="$flags -stdlib=libc++" CXXFLAGS="$flags -stdlib=libc++" \
          LIB_FUZZING_ENGINE=-fsanitize=fuzzer SRC=$scratch OUT=$scratch/oss/out WORK=$scratch/oss/work \
          KILN_CONFORMANCE_PREFIX=$prefix PROJECT_SRC=$example
   bash "$example/oss-fuzz/build.sh" >"$scratch/oss/build.log" 2>&1) || {
    tail -n 40 "$scratch/oss/build.log" >&2; echo "oss-fuzz/build.sh failed" >&2; exit 1; }
  for fuzzer in my_kiln_fuzzer my_hurray_fuzzer; do
    for file in "$fuzzer" "$fuzzer.dict" "${fuzzer}_seed_corpus.zip"; do
      [ -s "$scratch/oss/out/$file" ] || { echo "oss-fuzz/build.sh left no $file in \$OUT" >&2; exit 1; }
    done
    mkdir -p "$scratch/oss/seeds-$fuzzer"
    (cd "$scratch/oss/seeds-$fuzzer" && "$cmake" -E tar xf "$scratch/oss/out/${fuzzer}_seed_corpus.zip")
    (cd "$scratch/oss" && "$scratch/oss/out/$fuzzer" -runs=500 -dict="$scratch/oss/out/$fuzzer.dict" \
       "$scratch/oss/seeds-$fuzzer" >"$scratch/oss/$fuzzer.log" 2>&1) || {
      tail -n 40 "$scratch/oss/$fuzzer.log" >&2; echo "\$OUT/$fuzzer: a finding over the reference" >&2; exit 1; }
    echo "oss-fuzz/build.sh: \$OUT/$fuzzer with its dict and seed corpus, 500 runs clean"
  done
fi
echo "adapter fuzzer example: every check passed"
