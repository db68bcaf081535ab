// The QR encoder (Public/js/qr.js) against matrices from segno, an independent encoder
// (Tests/Fixtures/vectors/qr.json, made by scripts/qr-vectors.py). Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { qrMatrix, qrSvg } from '../../Public/js/qr.js';

const fixture = JSON.parse(readFileSync(new URL('../Fixtures/vectors/qr.json', import.meta.url), 'utf8'));
const rows = ({ modules }) => modules.map((row) => row.map((dark) => (dark ? '1' : '0')).join(''));
const ruleText = (version, ecc, length) => Array.from({ length },
  (_, i) => fixture.alphabet[(i * 7 + version * 13 + 'LMQH'.indexOf(ecc) * 3) % fixture.alphabet.length]).join('');

test('the fixture says where it came from and covers what it should', () => {
  assert.match(fixture.source.tool, /^segno \d/);
  assert.ok(fixture.count.vectors >= 26);
  assert.equal(fixture.vectors.length, fixture.count.vectors);
  assert.equal(fixture.count.capacity, 160);
  assert.equal(fixture.capacity.length, fixture.count.capacity);
  const v = fixture.vectors;
  assert.deepEqual(new Set(v.map((x) => x.ecc)), new Set(['L', 'M', 'Q', 'H']));
  assert.ok(v.some((x) => x.version >= 7), 'a version with version information');
  assert.ok(v.some((x) => x.text.length === 200 && x.text.startsWith('https://')));
  assert.ok(v.some((x) => /[^\x00-\x7f]/.test(x.text)), 'a text that is not ASCII');
  assert.deepEqual(new Set(v.filter((x) => 'mask' in x).map((x) => x.mask)), new Set([0, 1, 2, 3, 4, 5, 6, 7]));
});

test('every fixture matrix is the same module for module, version and mask too', () => {
  let checked = 0;
  for (const v of fixture.vectors) {
    const label = `${v.name} (${v.ecc}${'mask' in v ? `, mask ${v.mask}` : ''})`;
    const qr = qrMatrix(v.text, { ecc: v.ecc, mask: v.mask });
    assert.equal(qr.version, v.version, `${label}: version`);
    assert.equal(qr.mask, v.chosenMask, `${label}: mask`);
    assert.equal(qr.size, v.rows.length, `${label}: size`);
    assert.equal(qr.modules.length, qr.size);
    assert.ok(qr.modules.every((row) => row.length === qr.size && row.every((m) => typeof m === 'boolean')));
    assert.deepEqual(rows(qr), v.rows, `${label}: modules`);
    checked++;
  }
  assert.equal(checked, fixture.count.vectors);
});

test('every version and level, filled to capacity: same version, mask and matrix; one byte more needs the next version', () => {
  let checked = 0;
  for (const c of fixture.capacity) {
    const label = `version ${c.version}-${c.ecc}`;
    const qr = qrMatrix(ruleText(c.version, c.ecc, c.bytes), { ecc: c.ecc });
    assert.equal(qr.version, c.version, `${label}: version`);
    assert.equal(qr.size, c.version * 4 + 17);
    assert.equal(qr.mask, c.chosenMask, `${label}: mask`);
    assert.equal(createHash('sha256').update(rows(qr).join('\n')).digest('hex'), c.sha256, `${label}: modules`);
    const more = ruleText(c.version, c.ecc, c.bytes + 1);
    if (c.version < 40) assert.equal(qrMatrix(more, { ecc: c.ecc, mask: 0 }).version, c.version + 1, `${label}: one byte more`);
    else assert.throws(() => qrMatrix(more, { ecc: c.ecc }), new RegExp(`${c.bytes + 1} bytes in UTF-8; at most ${c.bytes} fit at error correction level ${c.ecc}`));
    checked++;
  }
  assert.equal(checked, fixture.count.capacity);
});

test('UTF-8 is counted in bytes, and M is the default level', () => {
  assert.equal(qrMatrix('é'.repeat(1165)).version, 40); // 2330 bytes: M holds 2331 at most
  assert.throws(() => qrMatrix('é'.repeat(1166)), /2332 bytes in UTF-8; at most 2331 fit at error correction level M/);
  assert.equal(qrMatrix('x').mask, qrMatrix('x', { ecc: 'M' }).mask);
  assert.deepEqual(rows(qrMatrix('x')), rows(qrMatrix('x', { ecc: 'M' })));
});

test('wrong arguments are refused clearly', () => {
  assert.throws(() => qrMatrix(42), /text must be a string/);
  assert.throws(() => qrMatrix('x', { ecc: 'X' }), /level must be L, M, Q or H/);
  assert.throws(() => qrMatrix('x', { mask: 8 }), /mask must be 0 to 7/);
  assert.throws(() => qrSvg('x', { scale: 0 }), /scale/);
  assert.throws(() => qrSvg('x', { margin: 1.5 }), /margin/);
});

test('the SVG draws exactly the dark modules, inside the quiet zone', () => {
  const text = fixture.vectors.find((v) => v.name === '200-char URL' && v.ecc === 'M').text;
  const qr = qrMatrix(text, { ecc: 'M' });
  const svg = qrSvg(text, { ecc: 'M', scale: 3, margin: 4, dark: '#123', light: '#fefefe' });
  const full = qr.size + 8;
  assert.match(svg, new RegExp(`^<svg xmlns="http://www.w3.org/2000/svg" width="${full * 3}" height="${full * 3}" viewBox="0 0 ${full} ${full}"`));
  assert.match(svg, /shape-rendering="crispEdges"/);
  assert.match(svg, / role="img" aria-label="QR code"/);
  assert.match(svg, new RegExp(`<rect width="${full}" height="${full}" fill="#fefefe"/>`));
  assert.equal(svg.match(/<path /g).length, 1);
  assert.match(svg, /<path fill="#123" d="/);
  // Paint the path's runs back onto a grid: it must be the matrix, offset by the margin.
  const grid = Array.from({ length: full }, () => new Array(full).fill(false));
  const d = svg.match(/ d="([^"]*)"/)[1];
  let runs = 0;
  for (const [, x, y, w, back] of d.matchAll(/M(\d+) (\d+)h(\d+)v1h-(\d+)z/g)) {
    assert.equal(back, w);
    for (let k = 0; k < Number(w); k++) {
      assert.equal(grid[Number(y)][Number(x) + k], false, 'no module drawn twice');
      grid[Number(y)][Number(x) + k] = true;
    }
    runs++;
  }
  assert.equal(d.replace(/M\d+ \d+h\d+v1h-\d+z/g, ''), '', 'nothing else in the path');
  assert.ok(runs > 0);
  const expected = grid.map((row, i) => row.map((_, j) => i >= 4 && j >= 4 && i < 4 + qr.size && j < 4 + qr.size && qr.modules[i - 4][j - 4]));
  assert.deepEqual(grid, expected);
});

test('the SVG escapes its label and colours, and can leave out the light square', () => {
  const svg = qrSvg('x', { label: 'Preview "my-app" <&>', light: null, margin: 0, scale: 1 });
  assert.match(svg, /aria-label="Preview &#34;my-app&#34; &#60;&#38;&#62;"/);
  assert.doesNotMatch(svg, /<rect/);
  assert.match(svg, /width="21" height="21" viewBox="0 0 21 21"/);
});
