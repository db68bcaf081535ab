// A screen drawn as the app shows it, in a device: the frame (bezel), the status bar and the safe
// areas of the device kind, the nav bar and the menu (a tab bar, a top bar or a side menu's button)
// from the screen's navigations, and the content scrolling between them. Every section and cell is
// drawn where the server's layout engine put it (POST /apps/{app}/preview answers JSON frames);
// nothing here computes a layout: the chrome sits around the content, the content is the server's.
// Cells show neutral placeholder artwork in their own aspect, or their style's content where the
// server laid it out (images as placeholders, texts as one bar a line); a hero is a paged carousel with page
// dots; horizontal sections are cut at the screen's edge, so they read as scrolling sideways.
import { h } from './dom.js';
import { typeName } from './views/components.js';

const NS = 'http://www.w3.org/2000/svg';

/** An SVG element: attributes, then children (strings become text). */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

const r2 = (n) => Math.round(n * 100) / 100;

/** A text cut to fit `width` points at `size` (an estimate: no measuring before drawing). */
function fit(text, width, size) {
  const max = Math.max(1, Math.floor(width / (size * 0.56)));
  const t = String(text ?? '');
  return t.length > max ? `${t.slice(0, Math.max(1, max - 1))}…` : t;
}

/**
 * What surrounds the content on a device, in points: the status bar and the bottom safe area of
 * its kind, and the bars the screen's navigations add.
 */
export function chromeOf(device, screen) {
  const kind = device.kind || (device.width >= 1280 ? 'tv' : device.width >= 700 ? 'tablet' : 'phone');
  const navigations = Array.isArray(screen?.navigations) ? screen.navigations : [];
  const navBar = navigations.find((n) => n?.category === 'nav_bar') || null;
  const menu = navigations.find((n) => n?.category === 'menu') || null;
  const menuType = String(menu?.navigation_type || '');
  let menuStyle = null;
  if (menu) {
    if (/tab|toolbar|bottom/i.test(menuType)) menuStyle = 'tabs';
    else if (/top/i.test(menuType) || kind === 'tv') menuStyle = 'top';
    else menuStyle = 'side';
  }
  const notch = kind === 'phone' && device.height >= 800;
  const m = {
    kind, navBar, menu, menuStyle, notch,
    status: { phone: notch ? 47 : 20, tablet: 24, tv: 0 }[kind] ?? 20,
    safeBottom: { phone: notch ? 34 : 0, tablet: 20, tv: 0 }[kind] ?? 0,
    bezel: { phone: 12, tablet: 18, tv: 10 }[kind] ?? 12,
    radius: { phone: notch ? 48 : 34, tablet: 24, tv: 4 }[kind] ?? 30,
    nav: 0, topMenu: 0, tabBar: 0,
  };
  if (navBar || menuStyle === 'side' || screen?.connected) m.nav = kind === 'tv' ? 64 : 44;
  if (menuStyle === 'top') m.topMenu = kind === 'tv' ? 56 : 40;
  if (menuStyle === 'tabs') m.tabBar = kind === 'tablet' ? 50 : 49;
  m.top = m.status + m.nav + m.topMenu;
  m.bottom = m.tabBar ? m.tabBar + m.safeBottom : 0;
  return m;
}

const titleOf = (item, i) => item?.title || item?.name || `Item ${i + 1}`;

function statusBar(m, width) {
  if (!m.status) return null;
  const y = m.notch ? 31 : m.status * 0.72;
  const size = m.notch ? 16 : 12;
  const right = width - (m.notch ? 28 : 10);
  return svg('g', { class: 'device-status' },
    svg('rect', { x: 0, y: 0, width, height: m.status, fill: '#ffffff' }),
    svg('text', { x: m.notch ? 36 : 8, y, 'font-size': size, 'font-weight': 600, fill: '#111' }, '9:41'),
    m.notch ? svg('rect', { class: 'island', x: width / 2 - 62, y: 11, width: 124, height: 36, rx: 18, fill: '#0b0b0d' }) : null,
    // Signal, then the battery.
    [0, 1, 2, 3].map((i) => svg('rect', { x: right - 52 + i * 5, y: y - 3 - i * 2.2, width: 3, height: 3 + i * 2.2, rx: 0.8, fill: '#111' })),
    svg('rect', { x: right - 26, y: y - 10, width: 23, height: 11.5, rx: 3, fill: 'none', stroke: '#111', 'stroke-width': 1 }),
    svg('rect', { x: right - 24, y: y - 8, width: 17, height: 7.5, rx: 1.5, fill: '#111' }),
    svg('rect', { x: right - 2, y: y - 6, width: 1.6, height: 4, rx: 0.8, fill: '#111' }));
}

function navBar(m, width, screen) {
  if (!m.nav) return null;
  const y = m.status;
  const mid = y + m.nav / 2;
  const size = m.kind === 'tv' ? 22 : 17;
  const items = (m.navBar?.nav_items || []).slice(0, 2);
  const parts = [svg('rect', { x: 0, y, width, height: m.nav, fill: '#f9f9fb' }),
    svg('line', { x1: 0, y1: y + m.nav - 0.5, x2: width, y2: y + m.nav - 0.5, stroke: '#d5d8de', 'stroke-width': 0.5 })];
  let left = 12;
  if (m.menuStyle === 'side') {
    parts.push(svg('g', { class: 'menu-button', 'aria-label': 'Menu' },
      [0, 1, 2].map((i) => svg('rect', { x: 14, y: mid - 7 + i * 6, width: 20, height: 2, rx: 1, fill: '#2f6fd6' }))));
    left = 44;
  } else if (screen?.connected) {
    parts.push(svg('path', { class: 'back-button', d: `M ${22} ${mid - 9} L ${14} ${mid} L ${22} ${mid + 9}`, fill: 'none', stroke: '#2f6fd6', 'stroke-width': 2.5, 'stroke-linecap': 'round', 'stroke-linejoin': 'round' }));
    left = 36;
  }
  // Items of the nav bar, from the right.
  let right = width - 12;
  const itemSize = m.kind === 'tv' ? 18 : 15;
  for (const [i, item] of [...items.entries()].reverse()) {
    const text = fit(titleOf(item, i), width * 0.22, itemSize);
    const w = text.length * itemSize * 0.56;
    parts.push(svg('text', { class: 'nav-item', x: r2(right - w), y: mid + itemSize * 0.35, 'font-size': itemSize, fill: '#2f6fd6' }, text));
    right -= w + 14;
  }
  const room = Math.max(40, Math.min(width - 2 * Math.max(left, width - right), width - 24));
  parts.push(svg('text', {
    class: 'nav-title', x: width / 2, y: mid + size * 0.35, 'text-anchor': 'middle', 'font-size': size, 'font-weight': 600, fill: '#111',
  }, fit(screen?.name || 'Screen', room, size)));
  return svg('g', { class: 'device-nav-bar' }, parts);
}

function topMenu(m, width) {
  if (!m.topMenu) return null;
  const y = m.status + m.nav;
  const items = (m.menu?.nav_items || []).slice(0, 8);
  const size = m.kind === 'tv' ? 20 : 14;
  const parts = [svg('rect', { x: 0, y, width, height: m.topMenu, fill: m.kind === 'tv' ? '#15181f' : '#ffffff' })];
  let x = 16;
  items.forEach((item, i) => {
    const text = fit(titleOf(item, i), width / Math.max(items.length, 1), size);
    parts.push(svg('text', { class: 'menu-item', x, y: y + m.topMenu / 2 + size * 0.35, 'font-size': size, 'font-weight': i === 0 ? 700 : 400, fill: m.kind === 'tv' ? (i === 0 ? '#fff' : '#aab') : (i === 0 ? '#2f6fd6' : '#555') }, text));
    const w = text.length * size * 0.56;
    if (i === 0) parts.push(svg('rect', { x, y: y + m.topMenu - 3, width: w, height: 3, rx: 1.5, fill: '#2f6fd6' }));
    x += w + 24;
  });
  return svg('g', { class: 'device-top-menu' }, parts);
}

function tabBar(m, width) {
  if (!m.tabBar) return null;
  const items = (m.menu?.nav_items || []).slice(0, 5);
  const shown = items.length ? items : [{ title: 'Menu' }];
  const step = width / shown.length;
  return svg('g', { class: 'device-tab-bar' },
    svg('rect', { x: 0, y: 0, width, height: m.tabBar + m.safeBottom, fill: '#f9f9fb' }),
    svg('line', { x1: 0, y1: 0.25, x2: width, y2: 0.25, stroke: '#d5d8de', 'stroke-width': 0.5 }),
    shown.map((item, i) => {
      const cx = step * i + step / 2;
      const color = i === 0 ? '#2f6fd6' : '#8a909c';
      return svg('g', { class: 'tab-item' },
        svg('rect', { x: cx - 11, y: 7, width: 22, height: 18, rx: 5, fill: 'none', stroke: color, 'stroke-width': 2 }),
        svg('text', { x: cx, y: 40, 'text-anchor': 'middle', 'font-size': 10, 'font-weight': 500, fill: color }, fit(titleOf(item, i), step - 6, 10)));
    }));
}

/** The placeholder picture: a neutral landscape, in the box given. */
function art(x, y, w, hgt, { dark = false } = {}) {
  const m = Math.min(w, hgt) * 0.42;
  const cx = x + w / 2;
  const cy = y + hgt / 2;
  return svg('g', { class: 'art' },
    svg('rect', { class: 'art-bg', x: r2(x), y: r2(y), width: r2(w), height: r2(hgt), rx: Math.min(6, m / 4), fill: dark ? '#c3c9d3' : '#dfe3e9' }),
    m >= 8 ? [
      svg('circle', { cx: r2(cx + m * 0.24), cy: r2(cy - m * 0.2), r: r2(m * 0.1), fill: '#f4f6f9' }),
      svg('path', {
        d: `M ${r2(cx - m / 2)} ${r2(cy + m * 0.3)} L ${r2(cx - m * 0.14)} ${r2(cy - m * 0.16)} L ${r2(cx + m * 0.06)} ${r2(cy + m * 0.08)} L ${r2(cx + m * 0.22)} ${r2(cy - m * 0.04)} L ${r2(cx + m / 2)} ${r2(cy + m * 0.3)} Z`,
        fill: '#b5bdc9',
      }),
    ] : null);
}

function textBars(x, y, w, hgt, lines = 2) {
  const bar = Math.max(4, Math.min(10, hgt * 0.14));
  const out = [];
  for (let i = 0; i < lines; i += 1) {
    out.push(svg('rect', { class: 'text-bar', x: r2(x), y: r2(y + i * bar * 1.9), width: r2(w * (i === 0 ? 0.8 : 0.5)), height: r2(bar), rx: bar / 2, fill: i === 0 ? '#cdd2da' : '#e2e5ea' }));
  }
  return out;
}

/**
 * A cell style's content, where the server laid it out (`item.content`: frames in screen
 * coordinates, in tree order): images as placeholders in their frames, texts as one bar a line.
 */
function content(nodes) {
  return nodes.map((n) => {
    const f = n.frame;
    if (!f || f.width <= 0 || f.height <= 0) return null;
    if (n.kind === 'image') {
      if (n.placeholder === 'avatar') {
        const r = Math.min(f.width, f.height) / 2;
        return svg('circle', { class: 'content-image avatar', cx: r2(f.x + f.width / 2), cy: r2(f.y + f.height / 2), r: r2(r), fill: '#dfe3e9' });
      }
      const g = art(f.x, f.y, f.width, f.height, { dark: n.placeholder === 'poster' });
      g.setAttribute('class', `art content-image ${n.placeholder || 'image'}`);
      return g;
    }
    if (n.kind === 'text') {
      const lines = Math.max(1, n.lines || 1);
      const line = f.height / lines;
      const bar = Math.max(1, Math.min(line * 0.6, 12));
      const dark = n.role === 'title' || n.role === 'badge';
      return svg('g', { class: 'content-text', 'data-role': n.role || 'body' },
        Array.from({ length: lines }, (_, i) => svg('rect', {
          class: 'text-bar', x: r2(f.x), y: r2(f.y + i * line + (line - bar) / 2),
          width: r2(f.width * (i === lines - 1 && lines > 1 ? 0.6 : 0.92)), height: r2(bar), rx: r2(bar / 2), fill: dark ? '#c3c9d3' : '#e2e5ea',
        })));
    }
    return null;
  });
}

/** One cell, drawn in its frame as the component type shows items. */
function cell(type, item) {
  const { x, y, width: w, height: hgt } = item.frame;
  const g = svg('g', { class: 'cell', 'data-index': item.index, 'data-cell-style': item.cell_style });
  g.append(svg('rect', { class: 'cell-frame', x, y, width: w, height: hgt, fill: 'none' }));
  if (Array.isArray(item.content) && item.content.length) {
    // What the cell style says is inside, as the server laid it out.
    g.append(...content(item.content).filter(Boolean));
    return g;
  }
  if (type === 'html_ticker' || type === 'tab_bar' || type === 'screen_picker') {
    const selected = item.index === 0;
    g.append(svg('rect', { x, y, width: w, height: hgt, rx: Math.min(hgt / 2, 14), fill: selected ? '#2f6fd6' : '#e6e9ee' }));
    g.append(svg('rect', { x: r2(x + w * 0.2), y: r2(y + hgt / 2 - 3), width: r2(w * 0.6), height: 6, rx: 3, fill: selected ? '#cfe0ff' : '#c3c9d3' }));
    return g;
  }
  if (type === 'hero') {
    g.append(art(x, y, w, hgt, { dark: true }));
    const band = hgt * 0.3;
    g.append(svg('rect', { x, y: r2(y + hgt - band), width: w, height: r2(band), fill: 'rgba(20,24,32,0.45)' }));
    g.append(svg('rect', { x: r2(x + 12), y: r2(y + hgt - band / 2 - 4), width: r2(w * 0.45), height: 8, rx: 4, fill: '#f4f6f9' }));
    return g;
  }
  if (w / hgt > 2.4) {
    // A row: the picture (16:9 of the row's height) and two lines of text.
    const pw = Math.min(hgt * 16 / 9, w * 0.42);
    g.append(art(x, y, pw, hgt));
    g.append(...textBars(x + pw + 10, y + hgt * 0.28, w - pw - 14, hgt));
    return g;
  }
  g.append(art(x, y, w, hgt));
  return g;
}

/** Page dots under a hero's pages (over the first page when there is no room under it). */
function pageDots(section, width) {
  const items = section.items;
  if (items.length < 2) return null;
  const first = items[0].frame;
  const n = Math.min(items.length, 10);
  const gap = 10;
  const room = section.frame.y + section.frame.height - (first.y + first.height);
  const under = room >= 8;
  const y = under ? first.y + first.height + room / 2 : first.y + first.height - 8;
  const start = width / 2 - ((n - 1) * gap) / 2;
  const on = under ? '#2f6fd6' : '#ffffff';
  const off = under ? '#c3c9d3' : 'rgba(255,255,255,0.55)';
  return svg('g', { class: 'page-dots', 'data-pages': items.length },
    Array.from({ length: n }, (_, i) => svg('circle', { class: 'page-dot', cx: r2(start + i * gap), cy: r2(y), r: 3, fill: i === 0 ? on : off })));
}

/** One component's section (and a group's children), named as the form names it. */
function section(sec, width, parentName, depth) {
  const name = `${typeName(sec.component_type)} ${sec.component_index + 1}${parentName ? ` in ${parentName}` : ''}`;
  const f = sec.frame;
  const g = svg('g', {
    class: 'section', 'data-component-index': sec.component_index, 'data-component-type': sec.component_type,
    'data-name': name, 'data-depth': depth,
  }, svg('title', {}, `${name} (${sec.items.length} item${sec.items.length === 1 ? '' : 's'})`));
  g.append(svg('rect', { class: 'section', x: f.x, y: f.y, width: f.width, height: f.height, fill: 'transparent' }));
  if (sec.header) {
    const hd = sec.header;
    const size = Math.max(9, Math.min(17, hd.height * 0.5));
    g.append(svg('rect', { class: 'header', x: hd.x, y: hd.y, width: hd.width, height: hd.height, fill: 'none' }));
    const horizontal = sec.content_size.width > f.width + 0.5;
    g.append(svg('text', { class: 'header-title', x: hd.x, y: r2(hd.y + hd.height / 2 + size * 0.35), 'font-size': r2(size), 'font-weight': 700, fill: '#14171f' },
      fit(name, hd.width * (horizontal ? 0.7 : 1), size)));
    if (horizontal) {
      g.append(svg('text', { class: 'see-all', x: hd.x + hd.width, y: r2(hd.y + hd.height / 2 + size * 0.3), 'text-anchor': 'end', 'font-size': r2(size * 0.8), fill: '#2f6fd6' }, 'See all ›'));
    }
  }
  if (sec.footer) {
    const ft = sec.footer;
    g.append(svg('rect', { class: 'footer', x: ft.x, y: ft.y, width: ft.width, height: ft.height, rx: 4, fill: '#eef0f4' }));
  }
  for (const item of sec.items) g.append(cell(sec.component_type, item));
  if (sec.component_type === 'hero') g.append(pageDots(sec, width));
  for (const child of sec.sections || []) g.append(section(child, width, name, depth + 1));
  return g;
}

/**
 * The device with the screen in it, at `zoom` pixels a point.
 * @param {{layout: object, device: {id, name, kind, width, height}, screen: object, zoom: number}} options
 */
export function drawDevice({ layout, device, screen, zoom }) {
  const W = layout.device.width;
  const H = layout.device.height;
  const m = chromeOf({ ...device, width: W, height: H }, screen);
  const contentHeight = Math.max(layout.content_size.height, 1);
  const px = (n) => `${r2(n * zoom)}px`;
  const content = svg('svg', {
    class: 'device-content', xmlns: NS, viewBox: `0 0 ${W} ${contentHeight}`, width: r2(W * zoom), height: r2(contentHeight * zoom),
    role: 'img', 'aria-label': `${screen?.name || 'Screen'} on ${device.name}: ${layout.sections.length} component${layout.sections.length === 1 ? '' : 's'}`,
    'font-family': '-apple-system, system-ui, Helvetica, Arial, sans-serif',
  }, svg('rect', { class: 'screen', x: 0, y: 0, width: W, height: contentHeight, fill: '#ffffff' }),
  layout.sections.map((sec) => section(sec, W, '', 0)));
  const top = m.top ? svg('svg', {
    class: 'device-chrome device-top', viewBox: `0 0 ${W} ${m.top}`, width: r2(W * zoom), height: r2(m.top * zoom),
    'aria-hidden': 'true', 'font-family': '-apple-system, system-ui, Helvetica, Arial, sans-serif',
  }, statusBar(m, W), navBar(m, W, screen), topMenu(m, W)) : null;
  const bottom = m.bottom ? svg('svg', {
    class: 'device-chrome device-bottom', viewBox: `0 0 ${W} ${m.bottom}`, width: r2(W * zoom), height: r2(m.bottom * zoom),
    'aria-hidden': 'true', 'font-family': '-apple-system, system-ui, Helvetica, Arial, sans-serif',
  }, tabBar(m, W)) : null;
  const home = m.safeBottom ? svg('svg', {
    class: 'device-home', viewBox: `0 0 ${W} ${m.safeBottom}`, width: r2(W * zoom), height: r2(m.safeBottom * zoom), 'aria-hidden': 'true',
  }, svg('rect', { x: W / 2 - 67, y: m.safeBottom - 13, width: 134, height: 5, rx: 2.5, fill: '#111' })) : null;
  const screenEl = h('div', { class: 'device-screen', style: `width:${px(W)};height:${px(H)};border-radius:${px(Math.max(m.radius - m.bezel, 0))}` },
    h('div', { class: 'device-viewport', style: `top:${px(m.top)};bottom:${px(m.bottom)}` }, content),
    top, bottom, home,
    // The safe areas: where the app keeps content clear of the status bar and the home indicator.
    m.status ? h('div', { class: 'safe-area safe-top', style: `height:${px(m.status)}`, title: `Safe area: ${m.status} points` }) : null,
    m.safeBottom ? h('div', { class: 'safe-area safe-bottom', style: `height:${px(m.safeBottom)}`, title: `Safe area: ${m.safeBottom} points` }) : null);
  return h('figure', { class: ['device', `device-${m.kind}`], 'data-device-id': device.id || '', 'data-zoom': String(zoom) },
    h('div', { class: 'device-body', style: `padding:${px(m.bezel)};border-radius:${px(m.radius)}` }, screenEl),
    h('figcaption', { text: `${device.name || `${W}×${H}`} · ${Math.round(zoom * 100)}%` }));
}

/** The width a device takes, in points (the screen and its bezel). */
export function deviceWidth(device, screen) {
  return device.width + 2 * chromeOf(device, screen).bezel;
}
