// The size of a cell style at the family's reference size, computed the way the server does
// (RiversCore Family.size(of:)):
//   columns n → (W − left − right − (n−1)·spacing) / n,   or a fixed width;
//   height → fixed,   or width / aspect_ratio.

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Reads "1.7778", "16:9" or "16/9" as a number (width ÷ height). */
export function parseRatio(text) {
  const t = String(text ?? '').trim();
  if (!t) return null;
  const m = /^(\d+(?:\.\d+)?)\s*[:/]\s*(\d+(?:\.\d+)?)$/.exec(t);
  if (m) { const a = Number(m[1]); const b = Number(m[2]); return b > 0 ? a / b : NaN; }
  const n = Number(t);
  return Number.isFinite(n) ? n : NaN;
}

export function availableWidth(family) {
  const W = num(family.reference_size?.width);
  if (W === null) return null;
  return W - (num(family.insets?.left) ?? 0) - (num(family.insets?.right) ?? 0);
}

/**
 * {width, height} of a style, or {error} saying what is missing or wrong.
 */
export function cellSize(family, style) {
  const available = availableWidth(family);
  let width;
  if ('columns' in style) {
    const n = num(style.columns);
    if (available === null) return { error: 'needs the reference width' };
    if (n === null || n < 1 || !Number.isInteger(n)) return { error: 'columns must be a whole number, at least 1' };
    const spacing = num(family.interitem_spacing) ?? 0;
    width = (available - (n - 1) * spacing) / n;
    if (width <= 0) return { error: `${n} columns do not fit in ${round(available)} points` };
  } else if ('width' in style) {
    width = num(style.width);
    if (width === null || width <= 0) return { error: 'width must be more than 0' };
    if (available !== null && width > available + 1e-9) return { error: `wider than the ${round(available)} points between the insets` };
  } else {
    return { error: 'needs columns or width' };
  }
  let height;
  if ('height' in style) {
    height = num(style.height);
    if (height === null || height <= 0) return { error: 'height must be more than 0' };
  } else if ('aspect_ratio' in style) {
    const r = num(style.aspect_ratio);
    if (r === null || r <= 0) return { error: 'aspect ratio must be more than 0' };
    height = width / r;
  } else {
    return { error: 'needs height or aspect ratio' };
  }
  return { width, height };
}

export function round(n) { return Math.round(n * 100) / 100; }

export function formatSize(size) {
  if (!size) return '–';
  if (size.error) return size.error;
  return `${round(size.width)} × ${round(size.height)}`;
}
