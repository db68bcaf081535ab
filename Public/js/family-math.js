// The size of a cell style at the family's reference size, by the server's rules (RiversCore
// Family.swift: `Family.read` checks, `Family.size(of:)` computes):
//   columns n → (W − left − right − (n−1)·spacing) / n,   or a width in points;
//   height → in points,   or width / aspect_ratio,   or "fit" (the content's height: the server
//   lays the content out, so the editor says "fit" and takes the height from the cell preview).
// Insets, spacing, widths and heights are lengths: n (scalable) or {"fixed": n} (lengths.js); at
// the reference size both are n.
// Both sides are checked against the same cases: Tests/Fixtures/vectors/cell-sizes.json
// (Tests/js/ and Tests/browser/test_vectors.py here, Tests/RiversCoreTests/SharedVectorTests.swift
// there).
import { readLength } from './lengths.js';

/** The bounds the server keeps (RiversCore Limits.swift; checked against the openapi.json it serves by
 *  Tests/js/editor-contract.test.mjs). */
export const LIMITS = {
  maxLength: 10000, // reference size, insets, spacing, fixed widths
  maxCellHeight: 100000,
  minAspectRatio: 0.01,
  maxAspectRatio: 100,
  maxColumns: 100,
};

const isNumber = (v) => typeof v === 'number' && Number.isFinite(v);
/** A member is given when it is there and not null (the server reads null as absent). */
const given = (object, key) => object?.[key] !== undefined && object?.[key] !== null;

/** Reads "1.7778", "16:9" or "16/9" as a number (width ÷ height). */
export function parseRatio(text) {
  const t = String(text ?? '').trim();
  if (!t) return null;
  const m = /^(\d+(?:\.\d+)?)\s*[:/]\s*(\d+(?:\.\d+)?)$/.exec(t);
  if (m) { const a = Number(m[1]); const b = Number(m[2]); return b > 0 ? a / b : NaN; }
  const n = Number(t);
  return Number.isFinite(n) ? n : NaN;
}

/** Ratios people write as width:height; a stored number close to one is shown that way. */
const COMMON_RATIOS = [[16, 9], [9, 16], [4, 3], [3, 4], [3, 2], [2, 3], [1, 1], [21, 9], [2, 1], [1, 2], [5, 4], [4, 5], [16, 10], [10, 16]];

/** An aspect ratio as typed: 1.7778 (or 16/9) reads "16:9"; other numbers as they are. */
export function formatRatio(value) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return value ?? '';
  for (const [a, b] of COMMON_RATIOS) if (Math.abs(value - a / b) <= 5e-4 * (a / b)) return `${a}:${b}`;
  return String(value);
}

/**
 * A family's numbers the sizes depend on, read as the server reads them: each is checked against
 * its bounds, and an invalid inset or spacing counts as 0 (as the server goes on with 0).
 * Returns {width (null when invalid), left, right, spacing, problems}.
 */
function familyNumbers(family) {
  const problems = [];
  const bounded = (raw, pointer, label, { minimum = 0, required = false, length = true } = {}) => {
    if (raw === undefined || raw === null) {
      if (required) problems.push({ pointer, message: `${label} is required` });
      return null;
    }
    // A length may be {"fixed": n}; the reference size is never scaled, so never fixed.
    const read = length ? readLength(raw) : (isNumber(raw) ? { value: raw } : { problem: 'must be a number' });
    if (read.problem) { problems.push({ pointer, message: `${label} ${read.problem}` }); return null; }
    const value = read.value;
    // The server points at the number: inside {"fixed": n}, that is …/fixed.
    const at = read.fixed ? `${pointer}/fixed` : pointer;
    if (value < minimum) { problems.push({ pointer: at, message: minimum === 0 ? `${label} must not be negative` : `${label} must be at least ${minimum}` }); return null; }
    if (value > LIMITS.maxLength) { problems.push({ pointer: at, message: `${label} must be at most ${LIMITS.maxLength}` }); return null; }
    return value;
  };
  const width = bounded(family?.reference_size?.width, '/reference_size/width', 'the reference width', { minimum: 1, required: true, length: false });
  const left = bounded(family?.insets?.left, '/insets/left', 'the left inset') ?? 0;
  const right = bounded(family?.insets?.right, '/insets/right', 'the right inset') ?? 0;
  const spacing = bounded(family?.interitem_spacing, '/interitem_spacing', 'the item spacing') ?? 0;
  return { width, left, right, spacing, problems };
}

/** The points cells share between the left and right insets, or null without a valid reference width. */
export function availableWidth(family) {
  const { width, left, right } = familyNumbers(family);
  return width === null ? null : width - left - right;
}

/**
 * {width, height} of a style at the reference size, or {error, problems} when the server would
 * refuse the family: `problems` are [{pointer, message}] (pointers into the family, the style's
 * under `pointer`, like /cell_styles/0), `error` the first message, for showing beside the style.
 */
export function cellSize(family, style, pointer = '') {
  const { width: W, left, right, spacing, problems } = familyNumbers(family);
  const at = (key) => (key ? `${pointer}/${key}` : pointer);
  const problem = (key, message) => problems.push({ pointer: at(key), message });
  const available = W === null ? null : W - left - right;
  if (available !== null && available <= 0) {
    problems.push({ pointer: '/insets', message: `the left and right insets leave no room in the reference width ${round(W)}` });
  }

  // Each member on its own, as the server reads them.
  let columns = null;
  if (given(style, 'columns')) {
    const n = style.columns;
    if (!isNumber(n) || !Number.isInteger(n)) problem('columns', 'columns must be a whole number');
    else if (n < 1) problem('columns', 'columns must be at least 1');
    else if (n > LIMITS.maxColumns) problem('columns', `columns must be at most ${LIMITS.maxColumns}`);
    else columns = n;
  }
  let fixedWidth = null;
  if (given(style, 'width')) {
    const read = readLength(style.width);
    const w = read.value;
    const widthAt = read.fixed ? 'width/fixed' : 'width';
    if (read.problem) problem('width', `width ${read.problem}`);
    else if (w <= 0) problem(widthAt, 'width must be more than 0');
    else if (w > LIMITS.maxLength) problem(widthAt, `width must be at most ${LIMITS.maxLength}`);
    else fixedWidth = w;
  }
  let fixedHeight = null;
  const fit = style?.height === 'fit';
  if (fit) {
    if (!given(style, 'content')) problem('height', 'a fit height needs content');
  } else if (given(style, 'height')) {
    const read = readLength(style.height);
    const v = read.value;
    const heightAt = read.fixed ? 'height/fixed' : 'height';
    if (read.problem) problem('height', `height ${read.problem === 'must be a number' ? 'must be a number or fit' : read.problem}`);
    else if (v <= 0) problem(heightAt, 'height must be more than 0');
    else if (v > LIMITS.maxCellHeight) problem(heightAt, `height must be at most ${LIMITS.maxCellHeight}`);
    else fixedHeight = v;
  }
  let ratio = null;
  if (given(style, 'aspect_ratio')) {
    const r = style.aspect_ratio;
    if (!isNumber(r)) problem('aspect_ratio', 'aspect ratio must be a number');
    else if (r < LIMITS.minAspectRatio || r > LIMITS.maxAspectRatio) problem('aspect_ratio', `aspect ratio must be between ${LIMITS.minAspectRatio} and ${LIMITS.maxAspectRatio}`);
    else ratio = r;
  }

  // Exactly one of columns and width, and one of height and aspect ratio.
  const hasColumns = given(style, 'columns');
  const hasWidth = given(style, 'width');
  const hasHeight = given(style, 'height');
  const hasRatio = given(style, 'aspect_ratio');
  if (hasColumns && hasWidth) problem('', 'give either columns or a width, not both');
  else if (!hasColumns && !hasWidth) problem('', 'needs columns or a width');
  if (hasHeight && hasRatio) problem('', 'give either a height or an aspect ratio, not both');
  else if (!hasHeight && !hasRatio) problem('', 'needs a height or an aspect ratio');

  const widthKnown = (hasColumns && !hasWidth && columns !== null) || (hasWidth && !hasColumns && fixedWidth !== null);
  const heightKnown = (hasHeight && !hasRatio && (fixedHeight !== null || fit)) || (hasRatio && !hasHeight && ratio !== null);
  let size = null;
  if (widthKnown && heightKnown) {
    const width = columns !== null ? (available - (columns - 1) * spacing) / columns : fixedWidth;
    // A fit height is the content's: the server's to lay out (see the cell preview).
    size = fit ? { width, height: null, fit: true } : { width, height: fixedHeight !== null ? fixedHeight : width / ratio };
    // The fit is checked only with a valid reference width that leaves room.
    if (W !== null && available > 0) {
      if (size.width <= 0) problem('columns', `${columns} columns with spacing ${round(spacing)} do not fit in ${round(available)} points`);
      else if (size.width > available + 1e-9) problem('width', `wider than the ${round(available)} points between the insets`);
    }
  }
  if (problems.length) return { error: problems[0].message, problems };
  if (!size) return { error: 'needs columns or a width, and a height or an aspect ratio', problems: [{ pointer: at(''), message: 'incomplete' }] };
  return size;
}

export function round(n) { return Math.round(n * 100) / 100; }

/** "145 × 81.56"; a fit height without a known height reads "145 × fit". */
export function formatSize(size) {
  if (!size) return '–';
  if (size.error) return size.error;
  if (typeof size.height !== 'number') return `${round(size.width)} × ${size.fit ? 'fit' : '–'}`;
  return `${round(size.width)} × ${round(size.height)}`;
}
