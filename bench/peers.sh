#!/usr/bin/env bash
# Side-by-side peer measurement (issue 7, docs/benchmarks.md "Peers side by side").
#
# Renders reference design 1 (testdata/bench/designs/tshirt-front.json: a 300-dpi PNG of
# 4167 x 5000 pixels) with
#   (a) fabric.js 7 on node-canvas 3 (bench/fabric/render.js),
#   (b) the libvips command line (bench/vips/render.sh),
#   (c) libvips in-process (bench/vipspeer: a Go program calling libvips through cgo, its
#       own Go module), with pngsave's defaults and at printworker's encoder settings,
#   (d) printworker render,
# on the same machine in one run, and prints median wall and CPU seconds, peak RSS and
# the ratios peer / printworker. It also times printworker on reference 1 as vector
# PDF and on references 2-4, and compares the peers' pictures with printworker's.
#
# Usage (as root on Debian, from anywhere; idempotent):
#   bench/peers.sh            install what is missing, then measure
#   bench/peers.sh install    only install (Debian packages, npm packages)
#   RUNS=7 bench/peers.sh     more timed rounds (default 5, after 1 warm-up round)
#   BENCH_WORK=/tmp/x         scratch and output folder (default /tmp/printworker-bench)
#
# Installs: Debian packages libvips-tools, libvips-dev (bench/vipspeer), time,
# fonts-dejavu-core and node-canvas' build needs (build-essential, libcairo2-dev, libpango1.0-dev, libjpeg-dev,
# libgif-dev, librsvg2-dev, pkg-config, python3); npm packages fabric, canvas and jsdom
# (versions pinned in bench/fabric/package.json) into bench/fabric/node_modules.
# node-canvas normally downloads a prebuilt binary from GitHub; that host is not
# reachable here, so canvas is built from source against Debian's cairo and pango
# (npm --build-from-source, node headers from Debian's /usr/include/node).
#
# Every command runs under a timeout, one at a time, so the script stops by itself.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${BENCH_WORK:-/tmp/printworker-bench}
RUNS=${RUNS:-5}
TIMEOUT=${BENCH_TIMEOUT:-300}
DATA=$ROOT/testdata/bench
DESIGN1=$DATA/designs/tshirt-front.json

log() { printf '== %s\n' "$*" >&2; }

install_debian() {
	local pkgs=(libvips-tools libvips-dev time build-essential libcairo2-dev libpango1.0-dev
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
	# --build-from-source: prebuild-install skips its download from GitHub (unreachable)
	# and node-gyp compiles against Debian's libraries; --nodedir=/usr: the node headers
	# come from Debian's nodejs package instead of a download.
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
if [[ ${1:-} == install ]]; then
	((FABRIC_OK)) && exit 0 || exit 1
fi

cd "$ROOT"
log "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(go version | cut -d' ' -f3), node $(node --version), $(vips --version)"

# Reference media: the small ones are committed, the photos are generated when
# missing (deterministic; see bench/refdesign).
if [[ ! -f $DATA/media/be1c0000000000000000a001.jpg || ! -f $DATA/media/be1c0000000000000000a004.jpg ]]; then
	log "generating reference media (go run ./bench/gen)"
	go run ./bench/gen -out "$DATA"
fi

log "building printworker and bench/imgdiff"
go build -o "$WORK/printworker" ./cmd/printworker
go build -o "$WORK/imgdiff" ./bench/imgdiff
# The in-process libvips peer is its own module (cgo over libvips-dev), never part of
# the service's build.
VIPSPEER_OK=1
(cd bench/vipspeer && go build -o "$WORK/vipspeer" .) || {
	log "building bench/vipspeer failed (libvips-dev missing?): measuring without it"
	VIPSPEER_OK=0
}
PW=$WORK/printworker
MEDIA=$DATA/media

# Every run is timed by GNU time: wall seconds, user and system CPU seconds, peak RSS
# of the largest process. The commands run in interleaved rounds (a, b, c, a, b, c,
# ...) after one warm-up round, not in one block per command as hyperfine does: the
# machine is shared, and interleaving exposes every renderer to the same background
# load, so the ratios hold even when absolute times drift.
declare -A CMD MEDIAN CPU RSS
ORDER=()
add() {
	ORDER+=("$1")
	CMD[$1]=$2
	: >"$WORK/$1.runs"
}

run_once() { # NAME [record]
	local name=$1
	# shellcheck disable=SC2086 # the command is a plain word list (no spaces in paths)
	if /usr/bin/time -f '%e %U %S %M' -o "$WORK/time.txt" timeout "$TIMEOUT" ${CMD[$name]} \
		>"$WORK/$name.stdout" 2>"$WORK/$name.stderr"; then
		if [[ ${2:-} == record ]]; then cat "$WORK/time.txt" >>"$WORK/$name.runs"; fi
	else
		log "failed: ${CMD[$name]}"
		tail -n 5 "$WORK/$name.stderr" >&2
	fi
}

# stats FILE: median wall, median CPU (user+sys), max peak RSS in MB of the runs.
stats() {
	python3 -c '
import statistics, sys
runs = [l.split() for l in open(sys.argv[1]) if l.strip()]
if not runs:
    print("- - -")
else:
    wall = statistics.median(float(r[0]) for r in runs)
    cpu = statistics.median(float(r[1]) + float(r[2]) for r in runs)
    print("%.3f %.2f %.0f" % (wall, cpu, max(int(r[3]) for r in runs) / 1024))
' "$1"
}

measure() {
	log "warm-up round"
	for n in "${ORDER[@]}"; do run_once "$n"; done
	for ((i = 1; i <= RUNS; i++)); do
		log "round $i/$RUNS (load average $(cut -d' ' -f1-3 /proc/loadavg))"
		for n in "${ORDER[@]}"; do run_once "$n" record; done
	done
	local m c r
	for n in "${ORDER[@]}"; do
		read -r m c r < <(stats "$WORK/$n.runs")
		MEDIAN[$n]=$m CPU[$n]=$c RSS[$n]=$r
	done
}

OUT=$WORK/out
rm -rf "$OUT"
mkdir -p "$OUT"
# printworker render writes into a folder, one file per view named by the export
# filename pattern; the size columns add up a folder.
add printworker "$PW render --design $DESIGN1 --media $MEDIA --out $OUT/printworker"
if ((FABRIC_OK)); then
	add fabric "node $ROOT/bench/fabric/render.js $DESIGN1 $MEDIA $OUT/fabric.png"
fi
# The vips pipeline's intermediate images go to memory (tmpfs) when there is one, as a
# tuned pipeline would do it.
VIPS_TMP=$WORK/vips-tmp
if [[ -d /dev/shm && -w /dev/shm ]]; then VIPS_TMP=/dev/shm/printworker-bench-vips; fi
add vips-cli "bash $ROOT/bench/vips/render.sh $MEDIA $OUT/vips.png $VIPS_TMP"
# libvips in-process: the same operations as vips-cli in one lazy pipeline, no
# intermediate files. vips-inproc keeps pngsave's defaults (compression 6, no row
# filter: the command line's output, byte for byte); vips-inproc-z1 encodes at
# printworker's settings (deflate level 1, adaptive row filter: "1 248").
if ((VIPSPEER_OK)); then
	add vips-inproc "$WORK/vipspeer $MEDIA $OUT/vips-inproc.png"
	add vips-inproc-z1 "$WORK/vipspeer $MEDIA $OUT/vips-inproc-z1.png 1 248"
fi

# Reference 1 as vector PDF, references 2-4: printworker only.
PDFDESIGN=$WORK/tshirt-front-pdf.json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for v in d["views"]:
    v["export"]["type"] = "pdf"
json.dump(d, open(sys.argv[2], "w"))
' "$DESIGN1" "$PDFDESIGN"
add printworker-pdf "$PW render --design $PDFDESIGN --media $MEDIA --out $OUT/printworker-pdf"
add ref2-two-views "$PW render --design $DATA/designs/tshirt-two-views.json --media $MEDIA --out $OUT/two-views"
add ref3-label "$PW render --design $DATA/designs/name-label.json --media $MEDIA --out $OUT/label"
add ref4-poster "$PW render --design $DATA/designs/poster-600dpi.json --media $MEDIA --out $OUT/poster"
# Reference 4 in libvips in-process too (its photo filling the page, at printworker's
# PNG settings).
if ((VIPSPEER_OK)); then
	add vips-inproc-poster "$WORK/vipspeer -poster $MEDIA $OUT/vips-poster.png 1 248"
fi
measure
if ((!FABRIC_OK)); then MEDIAN[fabric]=- CPU[fabric]=- RSS[fabric]=-; fi
if ((!VIPSPEER_OK)); then
	for n in vips-inproc vips-inproc-z1 vips-inproc-poster; do MEDIAN[$n]=- CPU[$n]=- RSS[$n]=-; done
fi

ratio() {
	python3 -c 'import sys
a, b = sys.argv[1], sys.argv[2]
print("-" if "-" in (a, b) else "%.1fx" % (float(a) / float(b)))' "$1" "$2"
}

# size PATH: bytes of a file, or of all files in a folder.
size() {
	if [[ -e $1 ]]; then du -cb "$1" | tail -n1 | cut -f1; else echo -; fi
}

canvas=$((4167 * 5000 * 4))
echo
echo "Reference 1 (tshirt-front) to a 300-dpi PNG, 4167 x 5000; $RUNS interleaved rounds after 1 warm-up round"
echo
echo "| renderer | median wall s | median CPU s (user+sys) | peak RSS MB | wall ratio to printworker | CPU ratio | output bytes |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for n in printworker fabric vips-cli vips-inproc vips-inproc-z1; do
	f=$OUT/printworker
	[[ $n == printworker ]] || f=$OUT/${n%-cli}.png
	r=1.0x rc=1.0x
	if [[ $n != printworker ]]; then
		r=$(ratio "${MEDIAN[$n]}" "${MEDIAN[printworker]}")
		rc=$(ratio "${CPU[$n]}" "${CPU[printworker]}")
	fi
	echo "| $n | ${MEDIAN[$n]} | ${CPU[$n]} | ${RSS[$n]} | $r | $rc | $(size "$f") |"
done
echo
echo "printworker, other outputs"
echo
echo "| design | output | median wall s | median CPU s | peak RSS MB | output bytes |"
echo "|---|---|---:|---:|---:|---:|"
row() { # NAME DESIGN OUTPUT DIR
	echo "| $2 | $3 | ${MEDIAN[$1]} | ${CPU[$1]} | ${RSS[$1]} | $(size "$OUT/$4") |"
}
row printworker-pdf "1 tshirt-front" "vector PDF" printworker-pdf
row ref2-two-views "2 tshirt-two-views" "2 PNG, 4167 x 5000" two-views
row ref3-label "3 name-label" "PNG, 1417 x 458" label
row ref4-poster "4 poster-600dpi" "PNG, 4958 x 7017" poster
echo "| 4 poster-600dpi, libvips in-process (1 248) | PNG, 4958 x 7017 | ${MEDIAN[vips-inproc-poster]} | ${CPU[vips-inproc-poster]} | ${RSS[vips-inproc-poster]} | $(size "$OUT/vips-poster.png") |"
echo
for k in wall CPU; do
	line="ratios ($k):"
	for n in fabric vips-cli vips-inproc vips-inproc-z1; do
		if [[ $k == wall ]]; then r=$(ratio "${MEDIAN[$n]}" "${MEDIAN[printworker]}"); else r=$(ratio "${CPU[$n]}" "${CPU[printworker]}"); fi
		line+=" $n/printworker $r"
	done
	echo "$line"
done
echo "printworker peak RSS ${RSS[printworker]} MB vs output canvas $((canvas / 1000000)) MB (4167*5000*4 bytes)"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo
echo "same picture? (bench/imgdiff against printworker's PNG)"
pwpng=$(find "$OUT/printworker" -name '*.png' | head -n1)
for f in "$OUT/fabric.png" "$OUT/vips.png" "$OUT/vips-inproc.png" "$OUT/vips-inproc-z1.png"; do
	if [[ -n $pwpng && -f $f ]]; then
		echo "$(basename "$f"): $("$WORK/imgdiff" "$pwpng" "$f" || true)"
	fi
done
pwposter=$(find "$OUT/poster" -name '*.png' | head -n1)
if [[ -n $pwposter && -f $OUT/vips-poster.png ]]; then
	echo "vips-poster.png (against printworker's poster): $("$WORK/imgdiff" "$pwposter" "$OUT/vips-poster.png" || true)"
fi
if ((FABRIC_OK)); then
	echo
	FABRIC_STAGES=1 timeout "$TIMEOUT" node "$ROOT/bench/fabric/render.js" "$DESIGN1" "$MEDIA" "$WORK/fabric-stages.png" 2>&1 >/dev/null | tail -n1 || true
fi
rm -rf "$VIPS_TMP"
echo "outputs in $OUT"
