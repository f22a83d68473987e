// Peer of the printworker benchmark: renders the first view of a design detail JSON
// (testdata/bench/designs/tshirt-front.json) to a PNG at the view's export dpi with
// fabric.js 7 on node-canvas 3, the way a designer built on fabric.js exports a print
// file: the scene in template pixels, drawn at the export multiplier dpi / 72.
//
//   node bench/fabric/render.js DESIGN.json MEDIA_DIR OUT.png
//
// It reads the same design and media as printworker and follows the same conventions
// (docs/rendering.md, hub-gaps.md "Rendering conventions"): 1 template px = 1 pt, so
// the multiplier is dpi / 72; elements clipped to their area; pictures scaled by
// autoResize; SVG recoloured by colorizeToColor; text centred on its position.
// Only what the reference designs use is handled (areaType area/template, no custom).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadImage, registerFont } from 'canvas';
import { Color, FabricImage, FabricText, Rect, StaticCanvas, loadSVGFromString, util } from 'fabric/node';

const [designPath, mediaDir, outPath] = process.argv.slice(2);
if (!outPath) {
	console.error('usage: node render.js DESIGN.json MEDIA_DIR OUT.png');
	process.exit(2);
}

// The same faces printworker embeds (render/fonts/dejavu), registered explicitly so
// fontconfig's choice cannot differ.
const fontDir = new URL('../../render/fonts/dejavu/', import.meta.url).pathname;
registerFont(join(fontDir, 'DejaVuSans.ttf'), { family: 'DejaVu Sans' });
registerFont(join(fontDir, 'DejaVuSans-Bold.ttf'), { family: 'DejaVu Sans', weight: 'bold' });
registerFont(join(fontDir, 'DejaVuSerif.ttf'), { family: 'DejaVu Serif' });
registerFont(join(fontDir, 'DejaVuSerif-Bold.ttf'), { family: 'DejaVu Serif', weight: 'bold' });

// FABRIC_STAGES=1 prints the time of each stage to stderr (bench/peers.sh does it once).
const stages = process.env.FABRIC_STAGES ? [['start', performance.now()]] : null;
const stage = (name) => stages && stages.push([name, performance.now()]);

const design = JSON.parse(readFileSync(designPath, 'utf8'));
const view = design.views[0];
const exp = view.export;
const areas = Object.fromEntries((view.areas || []).map((a) => [a.id, a]));

let box = { x: 0, y: 0, width: view.width, height: view.height };
if (exp.areaType === 'area') box = areas[exp.area];
const multiplier = exp.dpi / 72;
const widthPx = Math.round(box.width * multiplier);
const heightPx = Math.round(box.height * multiplier);

const mediaFiles = readdirSync(mediaDir);
const mediaPath = (id) => join(mediaDir, mediaFiles.find((f) => f.startsWith(id + '.')));

const colorOf = (el) => {
	const c = (el.colors || []).find((c) => c.default) || (el.colors || [])[0];
	return c ? c.color : '#000000';
};

// Template coordinates shifted so the export box starts at the canvas origin.
const at = (x, y) => ({ left: x - box.x, top: y - box.y });

const clipFor = (el) => {
	const a = el.area && areas[el.area];
	if (!a) return undefined;
	return new Rect({ ...at(a.x, a.y), width: a.width, height: a.height, originX: 'left', originY: 'top', absolutePositioned: true });
};

const resizeScale = (el, w, h) => {
	const a = (el.scaleArea && areas[el.scaleArea]) || (el.area && areas[el.area]) || { width: view.width, height: view.height };
	let s = 1;
	if (el.autoResize === 'fill') s = Math.max(a.width / w, a.height / h);
	if (el.autoResize === 'fit') s = Math.min(a.width / w, a.height / h);
	return s * (el.scale > 0 ? el.scale : 1);
};

// The print export: the scene in template pixels drawn at dpi/72, which is what a
// designer's toCanvasElement(multiplier) / toDataURL({ multiplier }) does; here on a
// canvas of the output size with the zoom set, so the node-canvas behind it can encode
// straight to PNG (no data URL round trip).
const canvas = new StaticCanvas(null, { width: widthPx, height: heightPx, enableRetinaScaling: false, renderOnAddRemove: false });
canvas.setZoom(multiplier);

const elements = [...view.elements].filter((e) => e.export !== false).sort((a, b) => a.weight - b.weight);
for (const el of elements) {
	const common = { ...at(el.positionX ?? 0, el.positionY ?? 0), originX: 'center', originY: 'center', angle: el.rotation || 0, clipPath: clipFor(el) };
	if (el.type === 'background') {
		const a = (el.area && areas[el.area]) || { x: 0, y: 0, width: view.width, height: view.height };
		canvas.add(new Rect({ ...at(a.x, a.y), width: a.width, height: a.height, originX: 'left', originY: 'top', fill: colorOf(el), strokeWidth: 0 }));
	} else if (el.type === 'picture') {
		const img = await loadImage(mediaPath(el.value._id));
		const s = resizeScale(el, img.width, img.height);
		canvas.add(new FabricImage(img, { ...common, scaleX: s, scaleY: s }));
	} else if (el.type === 'illustration') {
		const color = el.colorizeToColor || (el.colorize ? colorOf(el) : null);
		const { objects, options } = await loadSVGFromString(readFileSync(mediaPath(el.value._id), 'utf8'));
		const shapes = objects.filter(Boolean);
		if (color) {
			// Recolour every painted fill and stroke, keeping its opacity (fabric folds
			// fill-opacity into the colour's alpha).
			const recolour = (paint) => new Color(color).setAlpha(new Color(paint).getAlpha()).toRgba();
			for (const o of shapes) {
				if (typeof o.fill === 'string' && o.fill !== 'none' && o.fill !== '') o.set('fill', recolour(o.fill));
				if (typeof o.stroke === 'string' && o.stroke !== 'none' && o.stroke !== '') o.set('stroke', recolour(o.stroke));
			}
		}
		const group = util.groupSVGElements(shapes, options);
		// Natural size from the SVG's width/height (hub-gaps.md), not the ink bounds: the
		// group spans the ink, so its centre is moved by the ink's offset from the
		// document's centre.
		const s = resizeScale(el, options.width, options.height);
		const ink = group.getCenterPoint();
		group.set({
			...common,
			left: common.left + (ink.x - options.width / 2) * s,
			top: common.top + (ink.y - options.height / 2) * s,
			scaleX: s,
			scaleY: s,
		});
		canvas.add(group);
	} else if (el.type === 'text') {
		const value = el.value[Object.keys(el.value)[0]];
		canvas.add(
			new FabricText(value, {
				...common,
				fontFamily: el.defaultFont || 'DejaVu Sans',
				fontWeight: el.bold ? 'bold' : 'normal',
				fontStyle: el.italic ? 'italic' : 'normal',
				fontSize: el.fontsize,
				fill: colorOf(el),
				textAlign: el.align || 'center',
				lineHeight: el.lineHeight || 1.16,
				charSpacing: el.charSpacing || 0,
			}),
		);
	}
}

stage('scene built (media decoded, svg parsed)');
canvas.renderAll();
stage('drawn');
const png = canvas.getNodeCanvas().toBuffer('image/png', { resolution: exp.dpi });
stage('png encoded');
writeFileSync(outPath, png);
stage('written');
if (stages) {
	// performance.now() counts from the process start: the first stage is node's start-up
	// and the loading of fabric, jsdom and canvas.
	console.error(
		`fabric stages (ms): start-up and module loading ${stages[0][1].toFixed(0)}` +
			stages.slice(1).map(([n, t], i) => `, ${n} +${(t - stages[i][1]).toFixed(0)}`).join(''),
	);
}
