#!/bin/sh
# Layout engine benchmark: builds RiversLayoutBench in release and runs it.
# Lives in the repository's scripts/ (also works from the package root): scripts/bench-layout.sh
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
if [ -f "$here/Package.swift" ]; then cd "$here"; else cd "$here/.."; fi
swift build -c release --product RiversLayoutBench
.build/release/RiversLayoutBench
