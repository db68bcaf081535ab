// Cell sizes at a family's reference size (Public/js/family-math.js), against every case of
// Tests/Fixtures/vectors/cell-sizes.json (also run by SharedVectorTests.swift and
// Tests/browser/test_vectors.py), then the ratios, bounds and rounding. Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { cellSize, availableWidth, parseRatio, formatRatio, formatSize, round, LIMITS } from '../../Public/js/family-math.js';

const vectors = JSON.parse(readFileSync(new URL('../Fixtures/vectors/cell-sizes.json', import.meta.url))).vectors;
const TOLERANCE = 1e-9;

test('every shared vector: the size within 1e-9, or problems at exactly the server\'s pointers', () => {
  assert.ok(vectors.length >= 30);
  let sizes = 0;
  let refusals = 0;
  for (const v of vectors) {
    // As the browser suite calls it: the style with its id, under /cell_styles/0.
    const result = cellSize(v.family, { id: 'STYLE_1', ...v.cell_style }, '/cell_styles/0');
    if ('size' in v) {
      assert.equal(result.error, undefined, `${v.name}: ${result.error}`);
      assert.ok(Math.abs(result.width - v.size.width) <= TOLERANCE, `${v.name}: width ${result.width} instead of ${v.size.width}`);
      if (v.cell_style.height === 'fit') {
        // A fit height is the content's: the server lays it out (the editor shows its cell preview).
        assert.deepEqual([result.fit, result.height], [true, null], v.name);
      } else {
        assert.ok(Math.abs(result.height - v.size.height) <= TOLERANCE, `${v.name}: height ${result.height} instead of ${v.size.height}`);
        assert.equal(result.fit, undefined, v.name);
      }
      sizes += 1;
    } else {
      assert.ok(result.error, `${v.name}: no error`);
      const found = [...new Set(result.problems.map((p) => p.pointer))].sort();
      assert.deepEqual(found, [...v.problems].sort(), v.name);
      assert.equal(result.error, result.problems[0].message, `${v.name}: the error is the first problem`);
      refusals += 1;
    }
  }
  assert.equal(sizes + refusals, vectors.length);
  assert.ok(sizes > 0 && refusals > 0);
});

const family = { reference_size: { width: 320, height: 568 }, insets: { top: 10, left: 10, bottom: 10, right: 10 }, interitem_spacing: 10 };

test('problems point under the style\'s pointer, or at the style itself without one', () => {
  assert.deepEqual(cellSize(family, { columns: 0, height: 0 }), {
    error: 'columns must be at least 1',
    problems: [{ pointer: '/columns', message: 'columns must be at least 1' }, { pointer: '/height', message: 'height must be more than 0' }],
  });
  assert.deepEqual(cellSize(family, { columns: 1, width: 10, height: 5 }, '/cell_styles/2').problems,
    [{ pointer: '/cell_styles/2', message: 'give either columns or a width, not both' }]);
  assert.deepEqual(cellSize(family, { columns: 1, height: 10, aspect_ratio: 2 }).problems,
    [{ pointer: '', message: 'give either a height or an aspect ratio, not both' }]);
  assert.equal(cellSize(family, { width: { fixed: 0 }, height: 5 }, '/s').problems[0].pointer, '/s/width/fixed');
  assert.equal(cellSize(family, { width: 5, height: { fixed: -1 } }, '/s').problems[0].pointer, '/s/height/fixed');
});

test('messages say what is wrong, in words', () => {
  const error = (style, fam = family) => cellSize(fam, style).error;
  assert.equal(error({ columns: 1.5, height: 1 }), 'columns must be a whole number');
  assert.equal(error({ columns: 101, height: 1 }), 'columns must be at most 100');
  assert.equal(error({ width: 10001, height: 1 }), 'width must be at most 10000');
  assert.equal(error({ width: 301, height: 1 }), 'wider than the 300 points between the insets');
  assert.equal(error({ columns: 1, height: 100001 }), 'height must be at most 100000');
  assert.equal(error({ columns: 1, height: 'tall' }), 'height must be a number or fit');
  assert.equal(error({ columns: 1, aspect_ratio: '16:9' }), 'aspect ratio must be a number');
  assert.equal(error({ columns: 1, aspect_ratio: 101 }), 'aspect ratio must be between 0.01 and 100');
  assert.equal(error({ columns: 2, height: 'fit' }), 'a fit height needs content');
  assert.equal(error({ columns: 11, height: 1 }, { reference_size: { width: 100 }, interitem_spacing: 10 }), '11 columns with spacing 10 do not fit in 100 points');
  assert.equal(error({ columns: 1, height: 1 }, {}), 'the reference width is required');
  assert.equal(error({ columns: 1, height: 1 }, { reference_size: { width: 100 }, insets: { left: 60, right: 60 } }),
    'the left and right insets leave no room in the reference width 100');
  assert.equal(error({ columns: 1, height: 1 }, { reference_size: { width: 100 }, insets: { left: 'x' } }), 'the left inset must be a number');
  assert.equal(error({ columns: 1, height: 1 }, { reference_size: { width: 100 }, insets: { left: { fixed: 1, extra: 2 } } }),
    'the left inset must be a number or {"fixed": number}');
  assert.equal(error({ columns: 1, height: 1 }, { reference_size: { width: { fixed: 100 } } }), 'the reference width must be a number', 'the reference size is never fixed');
  assert.equal(error({ columns: 1, height: 1 }, { reference_size: { width: 100 }, interitem_spacing: 10001 }), 'the item spacing must be at most 10000');
});

test('sizes: columns share the width between the insets less the spacing; fixed lengths count as written', () => {
  assert.deepEqual(cellSize(family, { columns: 3, aspect_ratio: 0.5 }), { width: (300 - 20) / 3, height: (300 - 20) / 3 / 0.5 });
  assert.deepEqual(cellSize(family, { width: { fixed: 100 }, height: { fixed: 40 } }), { width: 100, height: 40 });
  assert.deepEqual(cellSize({ ...family, insets: { left: { fixed: 20 }, right: 0 } }, { columns: 1, height: 1 }), { width: 300, height: 1 });
  assert.deepEqual(cellSize(family, { columns: 2, height: 'fit', content: { kind: 'spacer' } }), { width: 145, height: null, fit: true });
  // null is absent.
  assert.deepEqual(cellSize(family, { columns: 1, width: null, height: 7, aspect_ratio: null }), { width: 300, height: 7 });
});

test('a style with nothing says both what it needs', () => {
  const r = cellSize(family, {}, '/cell_styles/0');
  assert.deepEqual(r.problems, [
    { pointer: '/cell_styles/0', message: 'needs columns or a width' },
    { pointer: '/cell_styles/0', message: 'needs a height or an aspect ratio' },
  ]);
  assert.equal(r.error, 'needs columns or a width');
});

test('the width available between the insets', () => {
  assert.equal(availableWidth(family), 300);
  assert.equal(availableWidth({ reference_size: { width: 375 }, insets: { left: { fixed: 16 }, right: 24 } }), 335);
  assert.equal(availableWidth({ reference_size: { width: 375 } }), 375, 'no insets: 0');
  assert.equal(availableWidth({ reference_size: { width: 375 }, insets: { left: -5, right: 'x' } }), 375, 'invalid insets count as 0');
  assert.equal(availableWidth({ reference_size: { width: 0.5 } }), null);
  assert.equal(availableWidth({}), null);
  assert.equal(availableWidth(null), null);
});

test('the bounds are the server\'s', () => {
  assert.deepEqual(LIMITS, { maxLength: 10000, maxCellHeight: 100000, minAspectRatio: 0.01, maxAspectRatio: 100, maxColumns: 100 });
});

test('ratios as typed: a number, or width:height or width/height', () => {
  assert.equal(parseRatio('16:9'), 16 / 9);
  assert.equal(parseRatio(' 4 / 3 '), 4 / 3);
  assert.equal(parseRatio('1.5'), 1.5);
  assert.equal(parseRatio('2.39:1'), 2.39);
  assert.equal(parseRatio(''), null);
  assert.equal(parseRatio('  '), null);
  assert.equal(parseRatio(null), null);
  assert.equal(parseRatio(undefined), null);
  assert.ok(Number.isNaN(parseRatio('16:0')), 'a zero height');
  assert.ok(Number.isNaN(parseRatio('wide')));
  assert.ok(Number.isNaN(parseRatio('16:9:1')));
  assert.ok(Number.isNaN(parseRatio('1,5')));
  assert.ok(Number.isNaN(parseRatio('Infinity')));
});

test('ratios shown: near a common ratio as width:height, others as they are', () => {
  assert.equal(formatRatio(1.7778), '16:9');
  assert.equal(formatRatio(16 / 9), '16:9');
  assert.equal(formatRatio(0.5625), '9:16');
  assert.equal(formatRatio(1), '1:1');
  assert.equal(formatRatio(1.6), '16:10');
  assert.equal(formatRatio(4 / 3), '4:3');
  // Within 0.05 % of the ratio only.
  assert.equal(formatRatio(16 / 9 * 1.0004), '16:9');
  assert.equal(formatRatio(16 / 9 * 1.0006), String(16 / 9 * 1.0006));
  assert.equal(formatRatio(1.78), '1.78');
  assert.equal(formatRatio(1.3), '1.3');
  // What is not a number is shown as it is.
  assert.equal(formatRatio('16:9'), '16:9');
  assert.equal(formatRatio(undefined), '');
  assert.equal(formatRatio(null), '');
});

test('rounding: two decimals, halves up', () => {
  assert.equal(round(81.56148048149397), 81.56);
  assert.equal(round(118.33333333333333), 118.33);
  assert.equal(round(0.125), 0.13);
  assert.equal(round(-0.125), -0.12, 'Math.round: halves toward +∞');
  assert.equal(round(145), 145);
  assert.equal(round(0.001), 0);
});

test('sizes shown: width × height, rounded; fit and errors in words', () => {
  assert.equal(formatSize({ width: 145, height: 81.56148048149397 }), '145 × 81.56');
  assert.equal(formatSize({ width: 118.33333333333333, height: 118.33333333333333 }), '118.33 × 118.33');
  assert.equal(formatSize({ width: 145, height: null, fit: true }), '145 × fit');
  assert.equal(formatSize({ width: 145, height: null }), '145 × –');
  assert.equal(formatSize({ error: 'needs columns or a width', problems: [] }), 'needs columns or a width');
  assert.equal(formatSize(null), '–');
  assert.equal(formatSize(cellSize(family, { columns: 2, aspect_ratio: 1.7778 })), '145 × 81.56');
});
