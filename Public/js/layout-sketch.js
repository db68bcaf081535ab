// A layout's thumbnail: a small sketch of the screen it starts, not a debug drawing. The server
// lays the components out (POST …/preview, JSON frames); here they are drawn inside a device-shaped
// frame (phone, tablet or TV, chosen by the family's reference size) as soft blocks by component
// type: a hero as a wide card with page dots, rows with a picture and two lines, cards in a grid
// or a horizontal list, a bar for a header. No labels and no fold line: what runs past the screen
// fades out at its bottom edge. The sketch is an image with an accessible name (what it shows).
import { api, state, find } from './state.js';
import { h } from './dom.js';
import { explain } from './notify.js';
import { typeName } from './views/components.js';

const SVG = 'http://www.w3.org/2000/svg';
let sketches = 0;

/** Soft tones by component type: [card, its picture, its lines]. */
const TONES = {
  hero: ['#d4e0f7', '#bccdf0', '#ffffff'],
  horizontal_list: ['#d8ece0', '#c2e0cd', '#9fc6ad'],
  grid: ['#f5e6d3', '#eed5b7', '#d9b68c'],
  list: ['#eef1f6', '#d6dce7', '#c3cad6'],
  group: ['#e9e3f5', '#d9cfee', '#bfb0e0'],
};
const OTHER = ['#e8ebf1', '#d6dbe4', '#c3cad6'];

function el(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) if (value !== undefined && value !== null) node.setAttribute(key, String(value));
  node.append(...children.filter(Boolean));
  return node;
}

/** The device preset nearest the family's reference size (its shape first, then its size). */
export function sketchDevice(familyId) {
  const devices = state.devices || [];
  if (!devices.length) return null;
  const ref = find.family(familyId)?.reference_size;
  if (!ref?.width || !ref?.height) return devices[0];
  const cost = (d) => Math.abs(Math.log((d.width / d.height) / (ref.width / ref.height))) * 4 + Math.abs(Math.log(d.width / ref.width));
  return devices.reduce((best, d) => (cost(d) < cost(best) ? d : best), devices[0]);
}

/** The frame around the screen, by the device's kind: bezel, corner radii, extra height below. */
function chrome(device) {
  const w = device.width;
  if (device.kind === 'tv') return { bezel: Math.round(w * 0.012), outer: w * 0.006, inner: 0, status: 0, stand: Math.round(w * 0.05) };
  if (device.kind === 'tablet') return { bezel: Math.round(w * 0.035), outer: w * 0.06, inner: w * 0.025, status: 24, stand: 0 };
  return { bezel: Math.round(w * 0.045), outer: w * 0.16, inner: w * 0.12, status: 24, stand: 0 };
}

function round(n) { return Math.round(n * 10) / 10; }

/** The SVG of a laid-out screen (the answer of POST …/preview) in its device. */
export function sketchSvg(layout, device) {
  const W = device.width;
  const H = device.height;
  const c = chrome(device);
  const id = `sketch-${++sketches}`;
  const totalW = W + 2 * c.bezel;
  const totalH = H + 2 * c.bezel + c.stand;
  const svg = el('svg', { viewBox: `0 0 ${totalW} ${totalH}`, 'aria-hidden': 'true', focusable: 'false', class: 'sketch', 'data-device': device.id });
  const screenClip = el('clipPath', { id: `${id}-screen` }, el('rect', { x: c.bezel, y: c.bezel, width: W, height: H, rx: round(c.inner) }));
  const fade = el('linearGradient', { id: `${id}-fade`, x1: 0, y1: 0, x2: 0, y2: 1 },
    el('stop', { offset: 0, 'stop-color': '#ffffff', 'stop-opacity': 0 }),
    el('stop', { offset: 1, 'stop-color': '#ffffff', 'stop-opacity': 0.95 }));
  svg.append(el('defs', {}, screenClip, fade));

  // The device.
  if (c.stand) {
    const cx = totalW / 2;
    svg.append(el('path', { class: 'sketch-stand', d: `M${cx - W * 0.08} ${totalH - c.stand} L${cx + W * 0.08} ${totalH - c.stand} L${cx + W * 0.14} ${totalH} L${cx - W * 0.14} ${totalH} Z`, fill: '#9aa3b2' }));
  }
  svg.append(el('rect', { class: 'sketch-body', x: 0, y: 0, width: totalW, height: H + 2 * c.bezel, rx: round(c.outer), fill: '#2b3140' }));
  svg.append(el('rect', { class: 'sketch-screen', x: c.bezel, y: c.bezel, width: W, height: H, rx: round(c.inner), fill: '#ffffff' }));

  const screen = el('g', { 'clip-path': `url(#${id}-screen)` });
  svg.append(screen);
  const top = c.bezel + c.status;
  const content = el('g', { transform: `translate(${c.bezel} ${top})` });
  screen.append(content);
  const u = Math.max(1, W / 375); // bars, dots and corners grow with a tablet's or a TV's points
  (layout.sections || []).forEach((section) => drawSection(content, section, W, u));

  // What runs past the screen's bottom edge fades out there (the fold, without a line).
  const height = layout.content_size?.height || 0;
  if (height + c.status > H) {
    const band = Math.min(H * 0.22, 120);
    screen.append(el('rect', { class: 'sketch-fold', x: c.bezel, y: c.bezel + H - band, width: W, height: band, fill: `url(#${id}-fade)` }));
  }
  // Status bar and home indicator (phones and tablets).
  if (c.status) {
    const bar = el('g', { class: 'sketch-status', fill: '#2b3140' });
    bar.append(el('rect', { x: c.bezel + W * 0.06, y: c.bezel + 8, width: W * 0.1, height: 7, rx: 3.5, opacity: 0.8 }));
    bar.append(el('rect', { x: c.bezel + W * 0.8, y: c.bezel + 8, width: W * 0.13, height: 7, rx: 3.5, opacity: 0.8 }));
    if (device.kind !== 'tablet') bar.append(el('rect', { x: c.bezel + W * 0.36, y: c.bezel + 5, width: W * 0.28, height: 14, rx: 7 }));
    bar.append(el('rect', { x: c.bezel + W * 0.35, y: c.bezel + H - 9, width: W * 0.3, height: 4, rx: 2, opacity: 0.55 }));
    svg.append(bar);
  }
  return svg;
}

function drawSection(host, section, W, u) {
  const type = section.component_type;
  const [card, picture, lines] = TONES[type] || OTHER;
  const g = el('g', { class: `sketch-section sketch-${String(type || 'other').replace(/[^a-z0-9_-]/gi, '')}` });
  host.append(g);
  if (section.header) drawBar(g, section.header, '#aab3c2', W, u);
  for (const item of section.items || []) {
    const f = item.frame;
    if (!f || f.x > W || f.width <= 0 || f.height <= 0) continue;
    const r = Math.min(10 * u, f.width / 10, f.height / 6);
    if (type === 'hero') {
      g.append(el('rect', { x: f.x, y: f.y, width: f.width, height: f.height, rx: r, fill: card }));
      g.append(el('path', { d: mountains(f, 0.55), fill: picture }));
      g.append(el('rect', { x: f.x + f.width * 0.06, y: f.y + f.height * 0.72, width: f.width * 0.5, height: Math.max(6 * u, f.height * 0.07), rx: 3 * u, fill: lines, opacity: 0.9 }));
    } else if (f.width > f.height * 2.4) {
      // A row: a picture on the left and two lines of text.
      g.append(el('rect', { x: f.x, y: f.y, width: f.width, height: f.height, rx: r, fill: card }));
      const pad = Math.min(8 * u, f.height * 0.12);
      const side = f.height - 2 * pad;
      g.append(el('rect', { x: f.x + pad, y: f.y + pad, width: side * 1.3, height: side, rx: Math.min(6 * u, side / 6), fill: picture }));
      const left = f.x + pad * 2 + side * 1.3;
      const lineH = Math.max(5 * u, Math.min(9 * u, f.height * 0.12));
      g.append(el('rect', { x: left, y: f.y + f.height * 0.32, width: (f.x + f.width - left) * 0.6, height: lineH, rx: lineH / 2, fill: lines }));
      g.append(el('rect', { x: left, y: f.y + f.height * 0.32 + lineH * 1.9, width: (f.x + f.width - left) * 0.38, height: lineH, rx: lineH / 2, fill: lines, opacity: 0.6 }));
    } else {
      // A card: its picture, and a line under it when it is tall enough.
      g.append(el('rect', { x: f.x, y: f.y, width: f.width, height: f.height, rx: r, fill: card }));
      g.append(el('path', { d: mountains(f, 0.5), fill: picture }));
    }
  }
  if (type === 'hero' && (section.items || []).length > 1) {
    // Page dots under the carousel.
    const n = Math.min(section.items.length, 6);
    const fr = section.frame;
    const gap = 9 * u;
    const x0 = fr.x + fr.width / 2 - ((n - 1) * gap) / 2;
    const y = fr.y + fr.height - 5 * u;
    for (let i = 0; i < n; i += 1) g.append(el('circle', { cx: x0 + i * gap, cy: y, r: 2.6 * u, fill: i === 0 ? '#6f86bd' : '#c9d1e0' }));
  }
  (section.sections || []).forEach((child) => drawSection(g, child, W, u));
  if (section.footer) drawBar(g, section.footer, '#cdd3de', W, u);
}

/** A header or footer: a title bar, and a shorter one at the right ("See all"). */
function drawBar(g, f, fill, W, u) {
  const h = Math.max(7 * u, Math.min(12 * u, f.height * 0.28));
  const y = f.y + f.height / 2 - h / 2;
  g.append(el('rect', { class: 'sketch-header', x: f.x, y, width: Math.min(f.width * 0.42, 160 * u), height: h, rx: h / 2, fill }));
  const right = Math.min(f.x + f.width, W);
  const more = Math.min(44 * u, f.width * 0.16);
  g.append(el('rect', { class: 'sketch-header', x: right - more, y: y + h * 0.15, width: more, height: h * 0.7, rx: h * 0.35, fill: '#b9c9ec' }));
}

/** Two soft hills in the lower part of a card: a picture placeholder. */
function mountains(f, depth) {
  const base = f.y + f.height;
  const top = f.y + f.height * (1 - depth);
  const x = f.x;
  const w = f.width;
  return `M${round(x)} ${round(base)} L${round(x)} ${round(top + f.height * depth * 0.5)} Q${round(x + w * 0.25)} ${round(top)} ${round(x + w * 0.5)} ${round(top + f.height * depth * 0.45)} Q${round(x + w * 0.72)} ${round(top + f.height * depth * 0.2)} ${round(x + w)} ${round(top + f.height * depth * 0.55)} L${round(x + w)} ${round(base)} Z`;
}

/**
 * A layout's sketch, as an image named by what it shows ("Sketch of layout Home on a small phone:
 * Hero, Horizontal list, Grid, List"). Draws when the server's frames arrive; a layout the server
 * cannot lay out shows an empty device and says why in its name and a hint.
 */
export function layoutSketch(layout, { className = 'layout-thumb' } = {}) {
  const device = sketchDevice(layout.family);
  const parts = (layout.ui_components || []).map((c) => typeName(c.component_type));
  const label = `Sketch of layout ${layout.name}${device ? ` on ${device.name}` : ''}: ${parts.length ? parts.join(', ') : 'no components'}`;
  const host = h('div', { class: [className, 'layout-sketch', device ? `sketch-${device.kind}` : null], role: 'img', 'aria-label': label });
  if (!device) return host;
  const empty = { sections: [], content_size: { width: device.width, height: 0 } };
  host.replaceChildren(sketchSvg(empty, device));
  if (!parts.length) return host;
  api.previewLayout({ name: layout.name || 'Layout', family: layout.family, ui_components: layout.ui_components }, device.id)
    .then((frames) => host.replaceChildren(sketchSvg(frames, device)))
    .catch((error) => {
      const { title, detail } = explain(error);
      host.setAttribute('aria-label', `${label} (no sketch: ${title})`);
      host.title = detail || title;
      host.classList.add('sketch-failed');
    });
  return host;
}
