#!/usr/bin/env bash
# Runs fuzz/oss-fuzz/build.sh here the way OSS-Fuzz's builder would (clang-14,
# ASan+UBSan, -fsanitize=fuzzer-no-link, libFuzzer as LIB_FUZZING_ENGINE; the
# builder's libc++ is replaced by the system libstdc++), then checks that every
# target, dict, options file and seed zip is in $OUT and that each target runs
# 500 inputs from its seed corpus without a crash.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

export CC=clang-14 CXX=clang++-14
export CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fsanitize=fuzzer-no-link"
export CXXFLAGS="$CFLAGS"
export LIB_FUZZING_ENGINE=-fsanitize=fuzzer
export SRC=$work/src OUT=$work/out WORK=$work/work
export KILN_BUILD_JOBS=${KILN_TEST_BUILD_JOBS:-2}
mkdir -p "$SRC" "$OUT" "$WORK"

(cd "$root" && bash fuzz/oss-fuzz/build.sh)

# The target list as CMake declared it (build.sh builds in $WORK/kiln-fuzz-build).
mapfile -t targets < "$WORK/kiln-fuzz-build/fuzz/targets.txt"
if (( ${#targets[@]} == 0 )); then echo "no fuzz targets listed" >&2; exit 1; fi
status=0
for target in "${targets[@]}"; do
  for file in "$target" "$target.dict" "$target.options" "${target}_seed_corpus.zip"; do
    if [[ ! -s "$OUT/$file" ]]; then
      echo "missing from \$OUT: $file" >&2
      status=1
    fi
  done
  [[ -x "$OUT/$target" ]] || { echo "not executable: $target" >&2; status=1; }
done
(( status == 0 )) || exit 1

for target in "${targets[@]}"; do
  seeds=$work/seeds/$target
  mkdir -p "$seeds"
  unzip -q "$OUT/${target}_seed_corpus.zip" -d "$seeds"
  count=$(find "$seeds" -type f | wc -l)
  if (( count == 0 )); then
    echo "$target: empty seed corpus" >&2
    exit 1
  fi
  if ! (cd "$work" && "$OUT/$target" -runs=500 -max_len=65536 -rss_limit_mb=2560 -timeout=25 \
          -dict="$OUT/$target.dict" -artifact_prefix="$work/" "$seeds" >"$work/$target.log" 2>&1); then
    tail -n 40 "$work/$target.log" >&2
    echo "$target: crashed or broke an oracle" >&2
    exit 1
  fi
  echo "$target: $count seeds, $(grep -o 'Done [0-9]* runs' "$work/$target.log")"
done
echo "OSS-Fuzz build: every target, dict, options file and seed zip present; all runs clean"
