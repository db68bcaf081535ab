// Lengths, as a family writes them (docs/cell-content.md, "Lengths: scalable or fixed"): a plain
// number is scalable (multiplied by the family's factor m on a device), `{"fixed": n}` is n points
// on every device. At the reference size (m = 1) both are n, so the editor's own sums use n.

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** True for `{"fixed": …}` (whatever is inside). */
export function isFixed(value) {
  return isObject(value) && Object.prototype.hasOwnProperty.call(value, 'fixed');
}

/** The number of a length (scalable or fixed), or null when it is no number. */
export function lengthNumber(value) {
  const n = isFixed(value) ? value.fixed : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}

/** A length written back: `{"fixed": n}` or n; undefined when there is no number. */
export function makeLength(n, fixed) {
  if (n === undefined || n === null || Number.isNaN(n)) return undefined;
  return fixed ? { fixed: n } : n;
}

/**
 * A length as the server reads it, for the editor's instant checks: {value} or {problem}. A fixed
 * length must be exactly {"fixed": number}.
 */
export function readLength(value) {
  if (isFixed(value)) {
    if (Object.keys(value).length !== 1) return { problem: 'must be a number or {"fixed": number}' };
    if (typeof value.fixed !== 'number' || !Number.isFinite(value.fixed)) return { problem: 'must be a number' };
    return { value: value.fixed, fixed: true };
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) return { problem: 'must be a number' };
  return { value, fixed: false };
}

/** "12" or "12 (fixed)". */
export function formatLength(value) {
  const n = lengthNumber(value);
  if (n === null) return '–';
  const text = String(Math.round(n * 100) / 100);
  return isFixed(value) ? `${text} (fixed)` : text;
}
