#!/usr/bin/env bash
# Side-by-side peer measurement (issue 7, docs/benchmarks.md "Peers side by side").
#
# Renders reference design 1 (testdata/bench/designs/tshirt-front.json: a 300-dpi PNG of
# 4167 x 5000 pixels) with
#   (a) fabric.js 7 on node-canvas 3 (bench/fabric/render.js),
#   (b) the libvips command line (bench/vips/render.sh),
#   (c) printworker render,
# each several times on the same machine in one run, and prints median seconds, peak
# RSS and the ratios peer / printworker. Then it times printworker on reference 1 as
# vector PDF and on references 2-4.
#
# Usage (as root on Debian, from anywhere; idempotent):
#   bench/peers.sh            install what is missing, then measure
#   bench/peers.sh install    only install (Debian packages, npm packages)
#   RUNS=7 bench/peers.sh     more timed runs per command (default 5, plus 1 warm-up)
#
# Installs: Debian packages libvips-tools, hyperfine, time, and node-canvas' build
# needs (build-essential, libcairo2-dev, libpango1.0-dev, libjpeg-dev, libgif-dev,
# librsvg2-dev, pkg-config, python3); npm packages fabric, canvas and jsdom into
# bench/fabric/node_modules. node-canvas normally downloads a prebuilt binary from
# GitHub; that host is not reachable here, so canvas is built from source against
# Debian's cairo and pango (npm --build-from-source, node headers from /usr/include/node).
#
# Everything runs one command at a time; every command has a timeout, so the script
# stops by itself.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${BENCH_WORK:-/tmp/printworker-bench}
RUNS=${RUNS:-5}
TIMEOUT=${BENCH_TIMEOUT:-300}
DATA=$ROOT/testdata/bench
DESIGN1=$DATA/designs/tshirt-front.json

log() { printf '== %s\n' "$*" >&2; }

install_debian() {
	local pkgs=(libvips-tools hyperfine time build-essential libcairo2-dev libpango1.0-dev
		libjpeg-dev libgif-dev librsvg2-dev pkg-config python3 fonts-dejavu-core)
	local missing=()
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	if ((${#missing[@]})); then
		log "apt-get install ${missing[*]}"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	fi
}

install_npm() {
	local dir=$ROOT/bench/fabric
	if [[ -f $dir/node_modules/canvas/build/Release/canvas.node && -d $dir/node_modules/fabric ]]; then
		return
	fi
	log "npm install in bench/fabric (canvas built from source: takes a few minutes)"
	# --build-from-source: skip prebuild-install's download from GitHub (unreachable)
	# and compile with node-gyp against Debian's libraries. nodedir=/usr: the node
	# headers come from Debian's nodejs package instead of a download.
	(cd "$dir" && timeout 1200 npm install --no-audit --no-fund --build-from-source \
		--nodedir=/usr --foreground-scripts >"$WORK/npm-install.log" 2>&1) || {
		log "npm install failed; the last lines of $WORK/npm-install.log:"
		tail -n 30 "$WORK/npm-install.log" >&2
		return 1
	}
}

mkdir -p "$WORK"
install_debian
FABRIC_OK=1
install_npm || FABRIC_OK=0
[[ ${1:-} == install ]] && exit $((1 - FABRIC_OK))

cd "$ROOT"
log "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(go version | cut -d' ' -f3), node $(node --version), $(vips --version)"

# Reference media: the small ones are committed, the photos are generated when
# missing (deterministic; see bench/refdesign).
if [[ ! -f $DATA/media/be1c0000000000000000a001.jpg || ! -f $DATA/media/be1c0000000000000000a004.jpg ]]; then
	log "generating reference media (go run ./bench/gen)"
	go run ./bench/gen -out "$DATA"
fi

log "building printworker"
go build -o "$WORK/printworker" ./cmd/printworker
PW=$WORK/printworker
MEDIA=$DATA/media

# peak_rss CMD...: one run under /usr/bin/time -v, prints the peak RSS in MB.
peak_rss() {
	/usr/bin/time -v -o "$WORK/time.txt" timeout "$TIMEOUT" "$@" >/dev/null 2>"$WORK/stderr.txt" || {
		log "failed: $*"
		cat "$WORK/stderr.txt" >&2
		echo "-"
		return
	}
	awk '/Maximum resident set size/ {printf "%.0f\n", $6/1024}' "$WORK/time.txt"
}

# timeit NAME CMD: hyperfine, 1 warm-up and RUNS timed runs; median seconds into
# $WORK/NAME.json. CMD is one shell string.
declare -A MEDIAN RSS
timeit() {
	local name=$1 cmd=$2
	log "timing $name: $cmd"
	if ! timeout $((TIMEOUT * (RUNS + 1))) hyperfine --style basic --warmup 1 --runs "$RUNS" \
		--export-json "$WORK/$name.json" "timeout $TIMEOUT $cmd" >&2; then
		MEDIAN[$name]=-
		RSS[$name]=-
		return
	fi
	MEDIAN[$name]=$(python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$WORK/$name.json")
	# shellcheck disable=SC2086 # cmd is a simple word list
	RSS[$name]=$(peak_rss bash -c "$cmd")
}

OUT=$WORK/out
rm -rf "$OUT"
mkdir -p "$OUT"
# printworker render writes into a folder, one file per view named by the export
# filename pattern; the size columns add up a folder.
timeit printworker "$PW render --design $DESIGN1 --media $MEDIA --out $OUT/printworker"
if ((FABRIC_OK)); then
	timeit fabric "node $ROOT/bench/fabric/render.js $DESIGN1 $MEDIA $OUT/fabric.png"
else
	MEDIAN[fabric]=-
	RSS[fabric]=-
fi
timeit vips-cli "bash $ROOT/bench/vips/render.sh $MEDIA $OUT/vips.png $WORK/vips-tmp"

# Reference 1 as vector PDF, references 2-4: printworker only.
PDFDESIGN=$WORK/tshirt-front-pdf.json
python3 - "$DESIGN1" "$PDFDESIGN" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for v in d["views"]:
    v["export"]["type"] = "pdf"
json.dump(d, open(sys.argv[2], "w"))
EOF
timeit printworker-pdf "$PW render --design $PDFDESIGN --media $MEDIA --out $OUT/printworker-pdf"
timeit ref2-two-views "$PW render --design $DATA/designs/tshirt-two-views.json --media $MEDIA --out $OUT/two-views"
timeit ref3-label "$PW render --design $DATA/designs/name-label.json --media $MEDIA --out $OUT/label"
timeit ref4-poster "$PW render --design $DATA/designs/poster-600dpi.json --media $MEDIA --out $OUT/poster"

ratio() {
	python3 -c 'import sys
a, b = sys.argv[1], sys.argv[2]
print("-" if "-" in (a, b) else "%.1fx" % (float(a) / float(b)))' "$1" "$2"
}

canvas=$((4167 * 5000 * 4))
# size PATH: bytes of a file, or of all files in a folder.
size() {
	if [[ -e $1 ]]; then du -cb "$1" | tail -n1 | cut -f1; else echo -; fi
}
echo
echo "Reference 1 (tshirt-front) to a 300-dpi PNG, 4167 x 5000; $RUNS runs after 1 warm-up, same machine, one run"
echo
echo "| renderer | median s | peak RSS MB | ratio to printworker | output bytes |"
echo "|---|---:|---:|---:|---:|"
for n in printworker fabric vips-cli; do
	f=$OUT/printworker
	[[ $n == printworker ]] || f=$OUT/${n%-cli}.png
	r=$([[ $n == printworker ]] && echo 1.0x || ratio "${MEDIAN[$n]}" "${MEDIAN[printworker]}")
	echo "| $n | ${MEDIAN[$n]} | ${RSS[$n]} | $r | $(size "$f") |"
done
echo
echo "printworker, other outputs"
echo
echo "| design | output | median s | peak RSS MB | output bytes |"
echo "|---|---|---:|---:|---:|"
echo "| 1 tshirt-front | vector PDF | ${MEDIAN[printworker-pdf]} | ${RSS[printworker-pdf]} | $(size "$OUT/printworker-pdf") |"
echo "| 2 tshirt-two-views | 2 PNG, 4167 x 5000 | ${MEDIAN[ref2-two-views]} | ${RSS[ref2-two-views]} | $(size "$OUT/two-views") |"
echo "| 3 name-label | PNG, 1417 x 458 | ${MEDIAN[ref3-label]} | ${RSS[ref3-label]} | $(size "$OUT/label") |"
echo "| 4 poster-600dpi | PNG, 4958 x 7017 | ${MEDIAN[ref4-poster]} | ${RSS[ref4-poster]} | $(size "$OUT/poster") |"
echo
echo "ratios: fabric/printworker $(ratio "${MEDIAN[fabric]}" "${MEDIAN[printworker]}"), vips-cli/printworker $(ratio "${MEDIAN[vips-cli]}" "${MEDIAN[printworker]}")"
echo "printworker peak RSS ${RSS[printworker]} MB vs output canvas $((canvas / 1000000)) MB (4167*5000*4 bytes)"
echo "outputs in $OUT"
