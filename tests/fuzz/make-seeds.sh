#!/bin/sh
# tests/fuzz/make-seeds.sh - regenerate the binary seed corpus from the text
# seeds: corpus/profile_binary/NAME.bin is corpus/profile_text/NAME.txt
# converted by build/sfdo-profile.  Run from anywhere after `make`; commit
# the result.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
tool=$root/build/sfdo-profile
text=$root/tests/fuzz/corpus/profile_text
bin=$root/tests/fuzz/corpus/profile_binary
if [ ! -x "$tool" ]; then
  echo "make-seeds.sh: $tool is missing; run make first" >&2
  exit 1
fi
mkdir -p "$bin"
rm -f "$bin"/*.bin
for src in "$text"/*.txt; do
  name=$(basename "$src" .txt)
  "$tool" convert --binary -o "$bin/$name.bin" "$src"
  echo "$bin/$name.bin"
done
