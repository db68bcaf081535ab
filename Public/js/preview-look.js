// How things look in the preview: colours and fonts read from the styles a screen, a component
// and a navigation carry (`background_color`, `title_color`, `title_size`, `ios_font_family`, …,
// colours as #RRGGBB or #AARRGGBB as apps read them, or rgba()), and the font sizes of a cell
// style's texts (from the family's content tree). The reading part is pure (node --test reads it);
// the drawing helpers at the end build SVG for device.js.

/** The colour names a style may use (others, such as `primary`, are not colours SVG knows). */
const NAMED = new Set(['black', 'white', 'red', 'green', 'blue', 'yellow', 'orange', 'purple', 'pink', 'brown', 'gray', 'grey',
  'silver', 'gold', 'navy', 'teal', 'maroon', 'olive', 'lime', 'aqua', 'cyan', 'magenta', 'fuchsia', 'indigo', 'violet', 'crimson']);

/** A colour as CSS: #RGB, #RRGGBB, #AARRGGBB (alpha first, as apps read it), rgb()/rgba()/hsl() or a name. */
export function cssColour(value) {
  if (typeof value !== 'string') return null;
  const v = value.trim();
  let m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(v);
  if (m) return `#${m[1].toLowerCase()}`;
  m = /^#([0-9a-f]{2})([0-9a-f]{6})$/i.exec(v);
  if (m) {
    const a = parseInt(m[1], 16) / 255;
    const n = parseInt(m[2], 16);
    const rgb = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
    return a >= 0.999 ? `#${m[2].toLowerCase()}` : `rgba(${rgb.join(',')},${Math.round(a * 1000) / 1000})`;
  }
  if (/^(rgba?|hsla?)\([\d\s.,%/deg-]+\)$/i.test(v)) return v.replace(/\s+/g, ' ');
  if (NAMED.has(v.toLowerCase())) return v.toLowerCase();
  return null;
}

/** The rgb of a CSS colour this module writes (#rgb, #rrggbb, rgba()), or null. */
function rgbOf(colour) {
  if (!colour) return null;
  let m = /^#([0-9a-f]{6})$/i.exec(colour);
  if (m) { const n = parseInt(m[1], 16); return [(n >> 16) & 255, (n >> 8) & 255, n & 255]; }
  m = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(colour);
  if (m) return m.slice(1).map((c) => parseInt(c + c, 16));
  m = /^rgba?\((\d+),\s*(\d+),\s*(\d+)/i.exec(colour);
  if (m) return m.slice(1, 4).map(Number);
  return null;
}

/** Whether text on this colour should be light (a dark background). Unknown colours: false. */
export function isDark(colour) {
  const rgb = rgbOf(colour);
  if (!rgb) return false;
  const [r, g, b] = rgb.map((c) => { const s = c / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.4;
}

/** A number from a style value (`17`, `"17"`, `"17pt"`), or null. */
export function sizeOf(value) {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  if (typeof value === 'string') {
    const n = Number.parseFloat(value);
    if (Number.isFinite(n) && n > 0) return n;
  }
  return null;
}

/** The first of `keys` in `styles` (looked for also in nested objects such as a text style's sections). */
function pick(styles, keys, read) {
  if (!styles || typeof styles !== 'object') return null;
  for (const k of keys) {
    const v = read(styles[k]);
    if (v !== null && v !== undefined) return v;
  }
  return null;
}

const PLATFORM_FONT_KEYS = {
  ios: ['ios_font_family', 'font_family', 'font', 'ios_font'],
  tvos: ['tvos_font_family', 'ios_font_family', 'font_family', 'font'],
  android: ['android_font_family', 'font_family', 'font', 'android_font'],
  androidtv: ['android_font_family', 'font_family', 'font'],
  web: ['web_font_family', 'font_family', 'font'],
};

/** A font family as SVG takes it: the style's, then the platform's own. */
export function fontStack(name, platform = 'ios') {
  const base = platform === 'android' || platform === 'androidtv'
    ? 'Roboto, "Noto Sans", system-ui, Arial, sans-serif'
    : '-apple-system, "SF Pro Text", system-ui, Helvetica, Arial, sans-serif';
  const clean = typeof name === 'string' ? name.trim().replace(/["<>;{}]/g, '') : '';
  return clean ? `"${clean}", ${base}` : base;
}

/**
 * The look of something from its styles: `background`, `text` (colour), `accent`, `titleSize`,
 * `font` (a family name or null); each null when the styles say nothing.
 */
export function lookOf(styles, platform = 'ios') {
  const colour = (keys) => pick(styles, keys, cssColour);
  return {
    background: colour(['background_color', 'bg_color', 'background', 'backgroundColor', 'screen_background_color']),
    cellBackground: colour(['cell_background_color', 'item_background_color']),
    text: colour(['title_color', 'text_color', 'font_color', 'color', 'titleColor', 'title_text_color']),
    subtitle: colour(['subtitle_color', 'summary_color', 'description_color', 'secondary_text_color']),
    accent: colour(['selected_color', 'highlight_color', 'accent_color', 'tint_color', 'selected_title_color', 'active_color', 'focus_color']),
    header: colour(['header_color', 'header_title_color', 'section_title_color', 'header_text_color']),
    headerBackground: colour(['header_background_color', 'header_bg_color']),
    titleSize: pick(styles, ['title_size', 'font_size', 'title_font_size', 'text_size'], sizeOf),
    headerSize: pick(styles, ['header_title_size', 'header_font_size', 'header_size'], sizeOf),
    font: pick(styles, PLATFORM_FONT_KEYS[platform] || PLATFORM_FONT_KEYS.ios, (v) => (typeof v === 'string' && v.trim() ? v.trim() : null)),
    presentation: typeof styles?.presentation_style === 'string' ? styles.presentation_style : null,
    align: typeof styles?.style === 'string' && /^(left|center)$/.test(styles.style) ? styles.style : null,
  };
}

/** The nodes of a content tree in tree order, depth first (the order the server numbers them). */
export function contentNodes(tree) {
  const out = [];
  const walk = (n) => {
    if (!n || typeof n !== 'object') return;
    out.push(n);
    for (const c of Array.isArray(n.children) ? n.children : []) walk(c);
  };
  walk(tree);
  return out;
}

/** A length of a family (a number, scaled by m, or {"fixed": n}). */
export function lengthOf(value, m) {
  if (typeof value === 'number') return value * m;
  if (value && typeof value === 'object' && typeof value.fixed === 'number') return value.fixed;
  return null;
}

/** The family's factor on a device: min(W / reference width, H / reference height). */
export function familyFactor(family, width, height) {
  const ref = family?.reference_size;
  if (!ref?.width || !ref?.height) return 1;
  return Math.min(width / ref.width, height / ref.height);
}

/**
 * The font size of each text node of each cell style, on this device: {styleId: [size by node
 * index or null]}. A text without a font size gets 14 scaled (the server's default).
 */
export function textSizes(family, width, height) {
  const m = familyFactor(family, width, height);
  const out = {};
  for (const style of family?.cell_styles || []) {
    if (!style?.content) continue;
    out[style.id] = contentNodes(style.content).map((n) => (n.kind === 'text' ? (lengthOf(n.font_size, m) ?? 14 * m) : null));
  }
  return out;
}

// Drawing helpers (SVG in the page) ----------------------------------------------------------------

const NS = 'http://www.w3.org/2000/svg';
export const SVG_NS = NS;

/** An SVG element: attributes, then children (strings become text). */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
  return el;
}

export const r2 = (n) => Math.round(n * 100) / 100;

/** A text cut to fit `width` points at `size` (an estimate: no measuring before drawing). */
export function fit(text, width, size) {
  const max = Math.max(1, Math.floor(width / (size * 0.55)));
  const t = String(text ?? '');
  return t.length > max ? `${t.slice(0, Math.max(1, max - 1)).trimEnd()}…` : t;
}

/** The width a text takes at `size`, estimated as fit() does. */
export function textWidth(text, size) {
  return String(text ?? '').length * size * 0.55;
}
