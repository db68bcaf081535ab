// A screen drawn as the app shows it, in a device: the frame (bezel), the chrome of its platform
// family (preview-chrome.js: iOS, Android, tvOS, Android TV or a browser) with the nav bar and the
// menu from the screen's navigations, and the content scrolling between them. Every section and
// cell is drawn where the server's layout engine put it (POST /apps/{app}/preview answers JSON
// frames); nothing here computes a layout. What fills the frames is sample content
// (sample-feed.js: a section title and item titles per data source, pictures generated from a
// seed) in the colours, fonts and sizes the screen's, the components' and the family's styles
// give (preview-look.js). A hero is a paged carousel with page dots; horizontal sections are cut at
// the screen's edge; on a TV the first item has the focus ring.
import { h } from './dom.js';
import { typeName } from './views/components.js';
import { svg, r2, fit, textWidth, lookOf, fontStack, isDark, textSizes, SVG_NS } from './preview-look.js';
import { chromeOf, topChrome, bottomChrome, homeIndicator, PLATFORM_NAMES } from './preview-chrome.js';
import { feedKey, feedFor, itemTitle, itemSubtitle, artOf } from './sample-feed.js';

export { chromeOf, svg };

let artCount = 0;

/** A generated picture: a gradient and a shape, seeded by the feed and the item (no outside image). */
function art(x, y, w, hgt, seed, { radius = 6, className = 'art', over = [] } = {}) {
  const a = artOf(seed.key, seed.index);
  const id = `art-${(artCount += 1)}`;
  const [x1, y1, x2, y2] = [[0, 0, 1, 1], [1, 0, 0, 1], [0, 0, 0, 1], [0, 0, 1, 0]][a.angle];
  const rx = Math.min(radius, Math.min(w, hgt) / 4);
  const parts = [
    svg('defs', {},
      svg('linearGradient', { id, x1, y1, x2, y2 }, svg('stop', { offset: 0, 'stop-color': a.from }), svg('stop', { offset: 1, 'stop-color': a.to })),
      svg('clipPath', { id: `${id}-clip` }, svg('rect', { x: r2(x), y: r2(y), width: r2(w), height: r2(hgt), rx: r2(rx) }))),
    svg('rect', { class: 'art-bg', x: r2(x), y: r2(y), width: r2(w), height: r2(hgt), rx: r2(rx), fill: `url(#${id})` }),
  ];
  const s = Math.min(w, hgt);
  if (s >= 16) {
    const cx = x + w * a.x;
    const cy = y + hgt * a.y;
    let shape;
    if (a.shape === 'sun') {
      shape = [svg('circle', { cx: r2(cx), cy: r2(cy), r: r2(s * 0.16), fill: 'rgba(255,255,255,0.55)' }),
        svg('path', { d: `M ${r2(x)} ${r2(y + hgt)} L ${r2(x + w * 0.35)} ${r2(y + hgt * 0.62)} L ${r2(x + w * 0.6)} ${r2(y + hgt * 0.8)} L ${r2(x + w * 0.8)} ${r2(y + hgt * 0.55)} L ${r2(x + w)} ${r2(y + hgt * 0.75)} L ${r2(x + w)} ${r2(y + hgt)} Z`, fill: 'rgba(0,0,0,0.28)' })];
    } else if (a.shape === 'hills') {
      shape = [svg('ellipse', { cx: r2(x + w * 0.3), cy: r2(y + hgt * 1.05), rx: r2(w * 0.55), ry: r2(hgt * 0.4), fill: 'rgba(255,255,255,0.18)' }),
        svg('ellipse', { cx: r2(x + w * 0.85), cy: r2(y + hgt * 1.1), rx: r2(w * 0.5), ry: r2(hgt * 0.35), fill: 'rgba(0,0,0,0.22)' })];
    } else if (a.shape === 'rings') {
      shape = [1, 2, 3].map((k) => svg('circle', { cx: r2(cx), cy: r2(cy), r: r2(s * 0.14 * k), fill: 'none', stroke: 'rgba(255,255,255,0.3)', 'stroke-width': r2(Math.max(1, s * 0.025)) }));
    } else {
      shape = [0, 1, 2].map((k) => svg('rect', { x: r2(x + w * (0.1 + k * 0.3) - w * 0.05), y: r2(y - hgt * 0.2), width: r2(w * 0.1), height: r2(hgt * 1.4), fill: 'rgba(255,255,255,0.14)', transform: `rotate(25 ${r2(cx)} ${r2(cy)})` }));
    }
    parts.push(svg('g', { 'clip-path': `url(#${id}-clip)` }, shape));
  }
  // What lies over the picture (a shade for a title) keeps to its rounded corners.
  if (over.length) parts.push(svg('g', { 'clip-path': `url(#${id}-clip)` }, over));
  return svg('g', { class: className, 'data-seed': `${seed.key}@${seed.index}` }, parts);
}

/** A text broken into at most `lines` lines of `width` points (the last one ends in … when cut). */
function wrap(text, width, size, lines) {
  const max = Math.max(1, Math.floor(width / (size * 0.55)));
  const words = String(text ?? '').split(/\s+/).filter(Boolean);
  const out = [];
  let line = '';
  while (words.length && out.length < lines) {
    const word = words[0];
    const next = line ? `${line} ${word}` : word;
    if (next.length <= max) { line = next; words.shift(); continue; }
    if (!line) { line = word; words.shift(); }
    out.push(line);
    line = '';
  }
  if (line && out.length < lines) out.push(line);
  if (words.length && out.length) out[out.length - 1] = fit(`${out[out.length - 1]} ${words.join(' ')}`, width, size);
  return out.map((l) => fit(l, width, size));
}

/** A text in a box: lines from the top, at `size`, in `ctx`'s colours and font. */
function textBlock(x, y, w, text, { size, lineHeight, lines = 1, weight = 400, fill, font, className = 'cell-text', role }) {
  const lh = lineHeight || size * 1.2;
  return svg('text', { class: className, 'data-role': role, 'font-size': r2(size), 'font-weight': weight, fill, 'font-family': font },
    wrap(text, w, size, lines).map((l, i) => svg('tspan', { x: r2(x), y: r2(y + i * lh + (lh + size * 0.7) / 2) }, l)));
}

/** What a text node of a role says, for item `index` of a feed. */
function textFor(role, ctx, index) {
  switch (role) {
    case 'title': return itemTitle(ctx.feed, index);
    case 'subtitle': case 'caption': return itemSubtitle(ctx.key, index);
    case 'badge': return index % 3 === 0 ? 'NEW' : index % 3 === 1 ? 'LIVE' : 'HD';
    case 'label': return itemSubtitle(ctx.key, index).split(' · ')[1];
    default: return `${itemTitle(ctx.feed, index)}: ${ctx.feed.title.toLowerCase()} from the sample feed, a line or two to show the body text.`;
  }
}

/**
 * A cell style's content, where the server laid it out (`item.content`: frames in screen
 * coordinates, in tree order): pictures in their frames, texts as the sample feed's words.
 */
function content(nodes, item, ctx) {
  const sizes = ctx.sizes[item.cell_style] || [];
  return nodes.map((n) => {
    const f = n.frame;
    if (!f || f.width <= 0 || f.height <= 0) return null;
    const seed = { key: ctx.key, index: item.index };
    if (n.kind === 'image') {
      if (n.placeholder === 'avatar') {
        const g = art(f.x, f.y, f.width, f.height, seed, { radius: Math.min(f.width, f.height) / 2, className: 'art content-image avatar' });
        return g;
      }
      if (n.placeholder === 'logo') {
        return svg('g', { class: 'art content-image logo' },
          svg('rect', { x: r2(f.x), y: r2(f.y), width: r2(f.width), height: r2(f.height), rx: 4, fill: ctx.dark ? 'rgba(255,255,255,0.12)' : '#eef0f4' }),
          svg('text', { x: r2(f.x + f.width / 2), y: r2(f.y + f.height / 2 + Math.min(f.height * 0.5, 14) * 0.35), 'text-anchor': 'middle', 'font-size': r2(Math.min(f.height * 0.5, 14)), 'font-weight': 800, fill: ctx.ink, 'font-family': ctx.font }, 'LOGO'));
      }
      return art(f.x, f.y, f.width, f.height, seed, { radius: n.placeholder === 'poster' ? 8 : 6, className: `art content-image ${n.placeholder || 'image'}` });
    }
    if (n.kind === 'text') {
      const lines = Math.max(1, n.lines || 1);
      const lineHeight = f.height / lines;
      const size = Math.max(4, Math.min(sizes[n.node] || lineHeight / 1.2, lineHeight));
      const role = n.role || 'body';
      const text = textFor(role, ctx, item.index);
      if (role === 'badge') {
        const w = Math.min(f.width, textWidth(text, size) + size);
        return svg('g', { class: 'content-text', 'data-role': role },
          svg('rect', { x: r2(f.x), y: r2(f.y), width: r2(w), height: r2(f.height), rx: r2(f.height / 2), fill: ctx.accent }),
          textBlock(f.x + size / 2, f.y, w - size, text, { size, lineHeight: f.height, weight: 700, fill: '#ffffff', font: ctx.font, role }));
      }
      const strong = role === 'title';
      return svg('g', { class: 'content-text', 'data-role': role },
        textBlock(f.x, f.y, f.width, text, {
          size, lineHeight, lines, weight: strong ? 600 : 400, font: ctx.font, role,
          fill: strong ? ctx.ink : (ctx.look.subtitle || ctx.muted),
        }));
    }
    return null;
  });
}

/** One cell, drawn in its frame as the component type shows items. */
function cell(type, item, ctx) {
  const { x, y, width: w, height: hgt } = item.frame;
  const g = svg('g', { class: 'cell', 'data-index': item.index, 'data-cell-style': item.cell_style });
  g.append(svg('rect', { class: 'cell-frame', x, y, width: w, height: hgt, fill: ctx.look.cellBackground || 'transparent' }));
  const seed = { key: ctx.key, index: item.index };
  const title = itemTitle(ctx.feed, item.index);
  if (Array.isArray(item.content) && item.content.length) {
    g.append(...content(item.content, item, ctx).filter(Boolean));
    return g;
  }
  if (type === 'html_ticker' || type === 'tab_bar' || type === 'screen_picker') {
    const selected = item.index === 0;
    const size = Math.max(8, Math.min(15, hgt * 0.42));
    g.append(svg('rect', { x, y, width: w, height: hgt, rx: Math.min(hgt / 2, 14), fill: selected ? ctx.accent : (ctx.dark ? 'rgba(255,255,255,0.1)' : '#e9ecf1') }));
    g.append(svg('text', { class: 'cell-text', 'data-role': 'title', x: r2(x + w / 2), y: r2(y + hgt / 2 + size * 0.35), 'text-anchor': 'middle', 'font-size': r2(size), 'font-weight': 600, fill: selected ? '#ffffff' : ctx.ink, 'font-family': ctx.font }, fit(title, w - 12, size)));
    return g;
  }
  if (type === 'hero') {
    g.append(art(x, y, w, hgt, seed, { radius: 0 }));
    const id = `scrim-${(artCount += 1)}`;
    g.append(svg('defs', {}, svg('linearGradient', { id, x1: 0, y1: 0, x2: 0, y2: 1 },
      svg('stop', { offset: 0, 'stop-color': '#000', 'stop-opacity': 0 }), svg('stop', { offset: 1, 'stop-color': '#000', 'stop-opacity': 0.65 }))));
    g.append(svg('rect', { class: 'scrim', x, y: r2(y + hgt * 0.45), width: w, height: r2(hgt * 0.55), fill: `url(#${id})` }));
    // The title sits above the page dots (drawn over the page's bottom edge when there is no room under it).
    const size = Math.max(10, Math.min(ctx.tv ? 40 : 24, hgt * 0.12, (ctx.look.titleSize || 99)));
    g.append(textBlock(x + Math.max(12, w * 0.04), y + hgt - (ctx.tv ? 44 : 22) - size * 2.4, w * 0.8, title, { size, lineHeight: size * 1.2, lines: 2, weight: 700, fill: '#ffffff', font: ctx.font, className: 'cell-text hero-title', role: 'title' }));
    return g;
  }
  if (w / hgt > 2.4) {
    // A row: the picture (16:9 of the row's height) and two lines of text.
    const pw = Math.min(hgt * 16 / 9, w * 0.42);
    g.append(art(x, y, pw, hgt, seed));
    const size = Math.max(8, Math.min(ctx.look.titleSize || 16, hgt * 0.24));
    const tx = x + pw + 10;
    g.append(textBlock(tx, y + hgt / 2 - size * 1.35, w - pw - 14, title, { size, weight: 600, fill: ctx.ink, font: ctx.font, role: 'title' }));
    g.append(textBlock(tx, y + hgt / 2 + size * 0.1, w - pw - 14, itemSubtitle(ctx.key, item.index), { size: size * 0.82, fill: ctx.look.subtitle || ctx.muted, font: ctx.font, role: 'subtitle' }));
    return g;
  }
  if (hgt >= 48 && w >= 60) {
    // A picture cell: its title on a shade at the bottom, as posters with their names.
    const size = Math.max(8, Math.min(ctx.look.titleSize || (ctx.tv ? 22 : 13), hgt * 0.14));
    const band = size * 2;
    g.append(art(x, y, w, hgt, seed, { over: [svg('rect', { class: 'scrim', x, y: r2(y + hgt - band), width: w, height: r2(band), fill: 'rgba(0,0,0,0.42)' })] }));
    g.append(textBlock(x + 8, y + hgt - band + (band - size * 1.2) / 2, w - 16, title, { size, weight: 600, fill: '#ffffff', font: ctx.font, role: 'title' }));
  } else {
    g.append(art(x, y, w, hgt, seed));
  }
  return g;
}

/** Page dots under a hero's pages (over the first page's bottom edge when there is no room under it). */
function pageDots(section, width, ctx) {
  const items = section.items;
  if (items.length < 2) return null;
  const first = items[0].frame;
  const n = Math.min(items.length, 10);
  // Dots keep their size on the screen: 3 points on a phone, larger on a TV's 1920 points.
  const r = Math.max(3, width / 300);
  const gap = r * 3.3;
  const room = section.frame.y + section.frame.height - (first.y + first.height);
  const under = room >= 2.6 * r;
  const y = under ? first.y + first.height + room / 2 : first.y + first.height - 3.3 * r;
  const start = width / 2 - ((n - 1) * gap) / 2;
  const on = under ? ctx.accent : '#ffffff';
  const off = under ? (ctx.dark ? 'rgba(255,255,255,0.3)' : '#c3c9d3') : 'rgba(255,255,255,0.55)';
  return svg('g', { class: 'page-dots', 'data-pages': items.length, 'data-under': String(under) },
    Array.from({ length: n }, (_, i) => svg('circle', { class: 'page-dot', cx: r2(start + i * gap), cy: r2(y), r: r2(r), fill: i === 0 ? on : off })));
}

/** The title of a section's header: the header's own (an imported document's), or the sample feed's. */
function headerTitle(component, feed) {
  const own = component?.header?.title ?? component?.header?.extra?.title;
  return typeof own === 'string' && own.trim() ? own.trim() : feed.title;
}

/** One component's section (and a group's children), named as the form names it. */
function section(sec, width, parentName, depth, ctx, component) {
  const name = `${typeName(sec.component_type)} ${sec.component_index + 1}${parentName ? ` in ${parentName}` : ''}`;
  const look = lookOf(component?.styles, ctx.platform);
  const key = feedKey(component, sec.component_index);
  const feed = feedFor(ctx.feeds, key);
  const background = look.background;
  const dark = background ? isDark(background) : ctx.dark;
  const mine = {
    ...ctx, key, feed, dark,
    look,
    ink: look.text || (background ? (dark ? '#ffffff' : '#111111') : ctx.ink),
    muted: dark ? 'rgba(255,255,255,0.7)' : '#5d6470',
    accent: look.accent || ctx.accent,
    font: look.font ? fontStack(look.font, ctx.platform) : ctx.font,
  };
  const f = sec.frame;
  const g = svg('g', {
    class: 'section', 'data-component-index': sec.component_index, 'data-component-type': sec.component_type,
    'data-name': name, 'data-depth': depth, 'data-feed': key,
  }, svg('title', {}, `${name} (${sec.items.length} item${sec.items.length === 1 ? '' : 's'})`));
  g.append(svg('rect', { class: 'section', x: f.x, y: f.y, width: f.width, height: f.height, fill: background || 'transparent' }));
  if (sec.header) {
    const hd = sec.header;
    const size = Math.max(9, Math.min(look.headerSize || (ctx.tv ? 30 : 20), hd.height * 0.6));
    if (look.headerBackground) g.append(svg('rect', { class: 'header', x: 0, y: hd.y, width, height: hd.height, fill: look.headerBackground }));
    else g.append(svg('rect', { class: 'header', x: hd.x, y: hd.y, width: hd.width, height: hd.height, fill: 'none' }));
    const horizontal = sec.content_size.width > f.width + 0.5;
    const headerInk = look.header || (look.headerBackground ? (isDark(look.headerBackground) ? '#ffffff' : '#111111') : mine.ink);
    g.append(svg('text', { class: 'header-title', x: hd.x, y: r2(hd.y + hd.height / 2 + size * 0.35), 'font-size': r2(size), 'font-weight': 700, fill: headerInk, 'font-family': mine.font },
      fit(headerTitle(component, feed), hd.width * (horizontal ? 0.7 : 1), size)));
    if (horizontal) {
      g.append(svg('text', { class: 'see-all', x: hd.x + hd.width, y: r2(hd.y + hd.height / 2 + size * 0.3), 'text-anchor': 'end', 'font-size': r2(size * 0.72), fill: mine.accent, 'font-family': mine.font }, ctx.platform === 'android' ? 'More' : 'See all ›'));
    }
  }
  if (sec.footer) {
    const ft = sec.footer;
    g.append(svg('rect', { class: 'footer', x: ft.x, y: ft.y, width: ft.width, height: ft.height, rx: 4, fill: dark ? 'rgba(255,255,255,0.08)' : '#eef0f4' }));
  }
  for (const item of sec.items) g.append(cell(sec.component_type, item, mine));
  if (sec.component_type === 'hero') g.append(pageDots(sec, width, mine));
  const children = Array.isArray(component?.ui_components) ? component.ui_components : [];
  for (const child of sec.sections || []) g.append(section(child, width, name, depth + 1, mine, children[child.component_index]));
  return g;
}

/** The first item drawn (depth first), for a TV's focus. */
function firstItem(sections) {
  for (const sec of sections) {
    if (sec.items?.length) return sec.items[0];
    const inner = firstItem(sec.sections || []);
    if (inner) return inner;
  }
  return null;
}

/** A TV's focus: the first item lifted, with a ring around it. */
function focusRing(item, tvos) {
  if (!item) return null;
  const { x, y, width: w, height: hgt } = item.frame;
  const pad = tvos ? 6 : 4;
  return svg('g', { class: 'focus-ring', 'data-index': item.index, 'pointer-events': 'none' },
    svg('rect', { x: r2(x - pad - 4), y: r2(y - pad - 4), width: r2(w + 2 * pad + 8), height: r2(hgt + 2 * pad + 8), rx: 14, fill: 'none', stroke: 'rgba(0,0,0,0.35)', 'stroke-width': 6 }),
    svg('rect', { class: 'ring', x: r2(x - pad), y: r2(y - pad), width: r2(w + 2 * pad), height: r2(hgt + 2 * pad), rx: 10, fill: 'none', stroke: '#ffffff', 'stroke-width': tvos ? 4 : 5 }));
}

/**
 * The device with the screen in it, at `zoom` pixels a point.
 * @param {{layout: object, device: {id, name, kind, width, height}, screen: object, zoom: number,
 *   family?: object, platform?: string, feeds?: object}} options
 */
export function drawDevice({ layout, device, screen, zoom, family = null, platform = 'ios', feeds = {} }) {
  const W = layout.device.width;
  const H = layout.device.height;
  const m = chromeOf({ ...device, width: W, height: H }, screen, platform);
  const p = m.platform;
  const screenLook = lookOf(screen?.styles, p);
  const background = screenLook.background || (m.tv ? '#0d1017' : p === 'android' ? '#fef7ff' : '#ffffff');
  const dark = isDark(background);
  const ctx = {
    platform: p, tv: m.tv, feeds, dark, look: screenLook,
    sizes: textSizes(family, W, H),
    ink: screenLook.text || (dark ? '#ffffff' : '#14171f'),
    muted: dark ? 'rgba(255,255,255,0.7)' : '#5d6470',
    accent: screenLook.accent || { ios: '#0a84ff', android: '#6750a4', web: '#2f6fd6', tvos: '#ffffff', androidtv: '#8ab4f8' }[p],
    font: fontStack(screenLook.font, p),
  };
  const contentHeight = Math.max(layout.content_size.height, 1);
  const px = (n) => `${r2(n * zoom)}px`;
  const components = Array.isArray(screen?.ui_components) ? screen.ui_components : [];
  const content = svg('svg', {
    class: 'device-content', xmlns: SVG_NS, viewBox: `0 0 ${W} ${contentHeight}`, width: r2(W * zoom), height: r2(contentHeight * zoom),
    role: 'img', 'aria-label': `${screen?.name || 'Screen'} on ${device.name} (${PLATFORM_NAMES[p]}): ${layout.sections.length} component${layout.sections.length === 1 ? '' : 's'}`,
    'font-family': ctx.font, 'data-platform': p,
  }, svg('rect', { class: 'screen', x: 0, y: 0, width: W, height: contentHeight, fill: background }),
  layout.sections.map((sec) => section(sec, W, '', 0, ctx, components[sec.component_index])),
  m.tv ? focusRing(firstItem(layout.sections), p === 'tvos') : null);
  // The status bar takes the nav bar's colour when there is one (iOS draws the bar under it).
  const barBackground = m.nav ? (m.navLook.background || null) : (m.tv ? null : background);
  const top = m.top ? svg('svg', {
    class: 'device-chrome device-top', viewBox: `0 0 ${W} ${m.top}`, width: r2(W * zoom), height: r2(m.top * zoom),
    'aria-hidden': 'true', 'font-family': fontStack(null, p),
  }, m.tv ? svg('rect', { x: 0, y: 0, width: W, height: m.top, fill: background }) : null, topChrome(m, W, screen, barBackground)) : null;
  const bottom = m.bottom ? svg('svg', {
    class: 'device-chrome device-bottom', viewBox: `0 0 ${W} ${m.bottom}`, width: r2(W * zoom), height: r2(m.bottom * zoom),
    'aria-hidden': 'true', 'font-family': fontStack(null, p),
  }, bottomChrome(m, W)) : null;
  const home = m.safeBottom ? svg('svg', {
    class: 'device-home', viewBox: `0 0 ${W} ${m.safeBottom}`, width: r2(W * zoom), height: r2(m.safeBottom * zoom), 'aria-hidden': 'true',
  }, homeIndicator(m, W)) : null;
  const screenEl = h('div', { class: 'device-screen', style: `width:${px(W)};height:${px(H)};border-radius:${px(Math.max(m.radius - m.bezel, 0))};background:${background}` },
    h('div', { class: 'device-viewport', style: `top:${px(m.top)};bottom:${px(m.bottom)}` }, content),
    top, bottom, home,
    // The safe areas: where the app keeps content clear of the status bar and the home indicator.
    m.status ? h('div', { class: 'safe-area safe-top', style: `top:${px(m.browser)};height:${px(m.status)}`, title: `Safe area: ${m.status} points` }) : null,
    m.safeBottom ? h('div', { class: 'safe-area safe-bottom', style: `height:${px(m.safeBottom)}`, title: `Safe area: ${m.safeBottom} points` }) : null);
  return h('figure', { class: ['device', `device-${m.kind}`, `platform-${p}`], 'data-device-id': device.id || '', 'data-platform': p, 'data-zoom': String(zoom) },
    h('div', { class: 'device-body', style: `padding:${px(m.bezel)};border-radius:${px(m.radius)}` }, screenEl),
    h('figcaption', { text: `${device.name || `${W}×${H}`} · ${PLATFORM_NAMES[p]} · ${Math.round(zoom * 100)}%` }));
}

/** The width a device takes, in points (the screen and its bezel). */
export function deviceWidth(device, screen, platform = 'ios') {
  return device.width + 2 * chromeOf(device, screen, platform).bezel;
}

/** The height a device takes, in points. */
export function deviceHeight(device, screen, platform = 'ios') {
  return device.height + 2 * chromeOf(device, screen, platform).bezel;
}
