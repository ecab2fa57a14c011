#!/usr/bin/env bash
# ctest install-and-gtest-example: `cmake --install` into a scratch prefix; the
# installed kiln-conformance finds the installed cases by itself (from another
# working folder, without --cases); then adapters/examples/gtest is configured
# against that prefix alone (find_package), built out of tree and its ctest run.
#   install_and_build_example.sh CMAKE BUILD_DIR EXAMPLE_SOURCE [CCACHE]
set -euo pipefail
cmake=$1 build=$2 example=$3 ccache=${4:-}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix

"$cmake" --install "$build" --prefix "$prefix" >/dev/null

# The installed runner, run from elsewhere, reads <prefix>/share/kiln-conformance/cases.
cd "$scratch"
output=$("$prefix/bin/kiln-conformance" run --adapter "$prefix/bin/kiln-reference-adapter" \
           --filter 'kiln-v2-header-*' --no-progress)
expected_from="from $prefix/share/kiln-conformance/cases"
if ! grep -qF "$expected_from" <<<"$output"; then
  echo "the installed runner did not read its installed cases ($expected_from):" >&2
  echo "$output" >&2
  exit 1
fi
grep -E '^[0-9]+ passed, 0 failed' <<<"$output"

# The example knows only the prefix. ccache (relative to the scratch folder,
# which changes every run) keeps the rebuild cheap.
launcher=()
if [ -n "$ccache" ]; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER="$ccache")
  export CCACHE_BASEDIR=$scratch
fi
"$cmake" -S "$example" -B "$scratch/example" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
"$cmake" --build "$scratch/example" -j2 >/dev/null
# ctest beside this cmake, which the build found.
ctest=$(dirname "$cmake")/ctest
"$ctest" --test-dir "$scratch/example" --output-on-failure
