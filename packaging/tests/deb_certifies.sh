#!/usr/bin/env bash
# ctest package-deb-certifies: CPack builds the runtime .deb; it is unpacked
# with dpkg-deb -x (no root) into a scratch root and its runner certifies its
# reference adapter with its cases, from a folder outside the source tree and
# without --cases. Its Depends must name the shared libraries the programs use,
# and its programs must not name the build machine's source folder.
#   deb_certifies.sh CPACK BUILD_DIR SOURCE_DIR
set -euo pipefail
cpack=$1 build=$2 source=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

"$cpack" --config "$build/CPackConfig.cmake" -B "$scratch/packages" \
  -D CPACK_COMPONENTS_ALL=runtime >"$scratch/cpack.log" 2>&1 || {
  cat "$scratch/cpack.log" >&2
  exit 1
}
debs=("$scratch"/packages/kiln-conformance_*.deb)
[ -f "${debs[0]}" ] || { echo "no kiln-conformance_*.deb was made" >&2; exit 1; }
deb=${debs[0]}

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for library in libyaml-cpp libyaml-0-2 libre2 libstdc++6 libc6; do
  grep -q "$library" <<<"$depends" || { echo "Depends lacks $library" >&2; exit 1; }
done

root=$scratch/root
dpkg-deb -x "$deb" "$root"
for program in kiln-conformance kiln-reference-adapter; do
  if grep -qF "$source" "$root/usr/bin/$program"; then
    echo "$program names the build machine's source folder $source" >&2
    exit 1
  fi
done
for doc in FORMAT.md PROTOCOL.md; do
  [ -f "$root/usr/share/doc/kiln-conformance/$doc" ] || { echo "no $doc in the package" >&2; exit 1; }
done

cd "$scratch"
output=$("$root/usr/bin/kiln-conformance" run --adapter "$root/usr/bin/kiln-reference-adapter" \
           --no-progress) || { echo "$output" >&2; exit 1; }
grep -qF "from $root/usr/share/kiln-conformance/cases" <<<"$output" ||
  { echo "the unpacked runner did not read the unpacked cases:" >&2; echo "$output" >&2; exit 1; }
grep -E '^CONFORMANT: ' <<<"$output" || { echo "$output" >&2; exit 1; }
grep -E '^[0-9]+ passed, 0 failed' <<<"$output"
