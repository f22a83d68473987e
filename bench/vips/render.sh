#!/usr/bin/env bash
# Peer of the printworker benchmark: reference design 1 (tshirt-front) composed with the
# libvips command line, as a shell pipeline of vips commands would do it: one command
# per layer, intermediate images in vips' native format in a scratch folder, one
# composite, one PNG save.
#
#   bash bench/vips/render.sh MEDIA_DIR OUT.png [SCRATCH_DIR]
#
# Geometry (bench/refdesign: export area 1000 x 1200 template px at 300 dpi, 1 template
# px = 1 pt, so 300/72 = 4.1667 output px per template px), in output pixels:
#   canvas 4167 x 5000 filled with #f3efe6
#   photo  2000 x 2000 JPEG scaled to cover 3167 x 2167, centre-cropped, at (500, 250)
#   badge  260 x 260 SVG recoloured to #1d4f91, rasterized at 1083 px, at (208, 3042)
#   texts  pango at 300 dpi with the font size in points (= template px):
#          DejaVu Sans Bold 72 centred on (2083, 2750);
#          DejaVu Serif 64 rotated 15 degrees clockwise centred on (2750, 3375);
#          DejaVu Sans 46, three lines centred, centred on (2750, 4271)
set -euo pipefail
media=$1 out=$2
tmp=${3:-$(mktemp -d)}
mkdir -p "$tmp"

photo=$media/be1c0000000000000000a001.jpg
badge=$media/be1c0000000000000000a002.svg

vips black "$tmp/black.v" 4167 5000 --bands 3
vips linear "$tmp/black.v" "$tmp/bg.v" "1 1 1" "243 239 230" --uchar

vips thumbnail "$photo" "$tmp/photo.v" 3167 --height 2167 --crop centre --size both

# Colourize: every painted fill and stroke takes the element colour, as printworker and
# the fabric peer do.
sed -E 's/(fill|stroke)="#[0-9a-fA-F]{6}"/\1="#1d4f91"/g' "$badge" >"$tmp/badge.svg"
vips svgload "$tmp/badge.svg" "$tmp/badge.v" --scale 4.1667

text() { # out markup font align
	vips text "$1" "$2" --font "$3" --dpi 300 --align "$4" --rgba
}
text "$tmp/t1.v" '<span foreground="#1d3557">SUMMER CAMP 2026</span>' "DejaVu Sans Bold 72" centre
text "$tmp/t2a.v" '<span foreground="#8b1e3f">Team Falcons</span>' "DejaVu Serif 64" centre
vips rotate "$tmp/t2a.v" "$tmp/t2.v" 15
text "$tmp/t3.v" '<span foreground="#333333">Anna Müller
Cabin 7 · River Trail
July 14 – 21</span>' "DejaVu Sans 46" centre

# centred X Y FILE: top-left corner that centres FILE on (X, Y).
centred() {
	local w h
	w=$(vipsheader -f width "$3")
	h=$(vipsheader -f height "$3")
	echo "$(($1 - w / 2)) $(($2 - h / 2))"
}
read -r x1 y1 < <(centred 2083 2750 "$tmp/t1.v")
read -r x2 y2 < <(centred 2750 3375 "$tmp/t2.v")
read -r x3 y3 < <(centred 2750 4271 "$tmp/t3.v")

# Blend mode 2 is VIPS_BLEND_MODE_OVER (the CLI takes the enum as numbers here).
vips composite "$tmp/bg.v $tmp/photo.v $tmp/badge.v $tmp/t1.v $tmp/t2.v $tmp/t3.v" "$tmp/all.v" \
	"2 2 2 2 2" --x "500 208 $x1 $x2 $x3" --y "250 3042 $y1 $y2 $y3"
# The canvas is opaque: save RGB, 300 dpi (11.811 px/mm), default compression.
vips extract_band "$tmp/all.v" "$tmp/rgb.v" 0 --n 3
vips copy "$tmp/rgb.v" "$out" --xres 11.811 --yres 11.811
rm -f "$tmp"/*.v "$tmp/badge.svg"
