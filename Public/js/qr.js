// A QR Code encoder (ISO/IEC 18004:2015, Model 2) for the editor's preview link: byte mode (UTF-8),
// error correction L/M/Q/H, versions 1–40. Pure functions, nothing from the DOM: the editor draws the
// code itself (no outside service sees the link), and Node's tests import this module as it is.
// Section numbers below are those of ISO/IEC 18004:2015.

// §7.5.1 Table 9, by level then version (index 0 unused): error correction codewords per block …
const ECC_PER_BLOCK = {
  L: [0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  M: [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
  Q: [0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  H: [0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
};
// … and the number of blocks the codewords are split into.
const BLOCKS = {
  L: [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
  M: [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
  Q: [0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
  H: [0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
};
// §7.9.1 Table 12: the two bits that name the error correction level in the format information.
const LEVEL_BITS = { L: 1, M: 0, Q: 3, H: 2 };

// §7.8.2 Table 10: the eight data mask patterns; a module (row i, column j) is inverted where true.
const MASKS = [
  (i, j) => (i + j) % 2 === 0,
  (i) => i % 2 === 0,
  (i, j) => j % 3 === 0,
  (i, j) => (i + j) % 3 === 0,
  (i, j) => (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0,
  (i, j) => ((i * j) % 2) + ((i * j) % 3) === 0,
  (i, j) => (((i * j) % 2) + ((i * j) % 3)) % 2 === 0,
  (i, j) => (((i + j) % 2) + ((i * j) % 3)) % 2 === 0,
];

// Annex E: centre rows/columns of the alignment patterns, evenly spaced from the far edge back to 6.
function alignmentPositions(version) {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const step = version === 32 ? 26 : Math.ceil((version * 4 + 4) / (count * 2 - 2)) * 2;
  const positions = [6];
  for (let pos = version * 4 + 10; positions.length < count; pos -= step) positions.splice(1, 0, pos);
  return positions;
}

// §6.4.10 Table 1: modules left for codewords once the function patterns and format/version
// information are taken out; whole codewords only (the rest are remainder bits).
function totalCodewords(version) {
  let modules = (16 * version + 128) * version + 64;
  if (version >= 2) {
    const n = Math.floor(version / 7) + 2;
    modules -= (25 * n - 10) * n - 55;
    if (version >= 7) modules -= 36;
  }
  return Math.floor(modules / 8);
}

const dataCodewords = (version, ecc) => totalCodewords(version) - ECC_PER_BLOCK[ecc][version] * BLOCKS[ecc][version];

// §7.5.2 Reed–Solomon over GF(2^8) with the field's polynomial x^8+x^4+x^3+x^2+1 (0x11D), α = 2.
const EXP = new Uint8Array(510), LOG = new Uint8Array(256);
for (let i = 0, x = 1; i < 255; i++, x = (x << 1) ^ (x & 0x80 ? 0x11d : 0)) { EXP[i] = EXP[i + 255] = x; LOG[x] = i; }
const gfMul = (a, b) => (a && b ? EXP[LOG[a] + LOG[b]] : 0);

// The generator polynomial (x − α^0)(x − α^1)…(x − α^(n−1)), coefficients from the highest power.
function rsGenerator(n) {
  let g = [1];
  for (let i = 0; i < n; i++) {
    const next = [...g, 0];
    for (let j = 0; j < g.length; j++) next[j + 1] ^= gfMul(g[j], EXP[i]);
    g = next;
  }
  return g;
}

// The error correction codewords: the remainder of data(x)·x^n divided by the generator.
function rsRemainder(data, gen) {
  const rem = new Array(gen.length - 1).fill(0);
  for (const byte of data) {
    const factor = byte ^ rem.shift();
    rem.push(0);
    for (let j = 0; j < rem.length; j++) rem[j] ^= gfMul(gen[j + 1], factor);
  }
  return rem;
}

// §7.9.1 / §7.10: BCH codes protecting the format (15,5) and version (18,6) information.
function bch(value, dataBits, poly, polyDegree) {
  let rem = value << polyDegree;
  for (let bit = dataBits + polyDegree - 1; bit >= polyDegree; bit--) if (rem & (1 << bit)) rem ^= poly << (bit - polyDegree);
  return (value << polyDegree) | rem;
}

// §7.4 data encoding → §7.6 final message: the codewords in the order they are placed.
function codewords(bytes, version, ecc) {
  const capacity = dataCodewords(version, ecc);
  const bits = [];
  const put = (value, length) => { for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1); };
  put(0b0100, 4); // §7.4.5 byte mode indicator
  put(bytes.length, version < 10 ? 8 : 16); // §7.4.2 Table 3: character count indicator length
  for (const b of bytes) put(b, 8);
  put(0, Math.min(4, capacity * 8 - bits.length)); // §7.4.9 terminator, shortened if the symbol is full
  put(0, (8 - (bits.length % 8)) % 8); // §7.4.10 pad to a whole codeword …
  const data = [];
  for (let i = 0; i < bits.length; i += 8) data.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
  for (let pad = 0xec; data.length < capacity; pad ^= 0xec ^ 0x11) data.push(pad); // … then 11101100 / 00010001

  // §7.5.2 split into blocks (the later blocks one data codeword longer), each with its own ECC.
  const blockCount = BLOCKS[ecc][version], eccLength = ECC_PER_BLOCK[ecc][version];
  const shortLength = Math.floor(capacity / blockCount), longCount = capacity % blockCount;
  const gen = rsGenerator(eccLength);
  const blocks = [];
  for (let b = 0, at = 0; b < blockCount; b++) {
    const block = data.slice(at, (at += shortLength + (b >= blockCount - longCount ? 1 : 0)));
    blocks.push({ data: block, ecc: rsRemainder(block, gen) });
  }
  // §7.6 interleave: the i-th data codeword of every block in turn, then the same for the ECC.
  const result = [];
  for (let i = 0; i <= shortLength; i++) for (const block of blocks) if (i < block.data.length) result.push(block.data[i]);
  for (let i = 0; i < eccLength; i++) for (const block of blocks) result.push(block.ecc[i]);
  return result;
}

// §7.9.1 Figure 25: where the 15 format bits go (bit 0 first), as [row, column], in both copies.
function formatCells(size) {
  const first = [], second = [];
  for (let i = 0; i < 15; i++) {
    first.push(i < 6 ? [i, 8] : i < 8 ? [i + 1, 8] : i === 8 ? [8, 7] : [8, 14 - i]);
    second.push(i < 8 ? [8, size - 1 - i] : [size - 15 + i, 8]);
  }
  return [...first, ...second];
}

// §7.8.3.1 Table 11: penalty points of a masked symbol; the mask with the fewest is chosen.
function penalty(m) {
  const size = m.length;
  let score = 0, dark = 0;
  const lines = [];
  for (let i = 0; i < size; i++) { lines.push(m[i]); lines.push(m.map((row) => row[i])); }
  const light = (line, from, to) => { for (let k = Math.max(from, 0); k < Math.min(to, size); k++) if (line[k]) return false; return true; };
  for (const line of lines) {
    // N1: a run of five or more modules of one colour scores 3, plus 1 per module past five.
    for (let k = 0, run = 0; k <= size; k++) {
      if (k < size && k > 0 && line[k] === line[k - 1]) run++;
      else { if (run >= 5) score += run - 2; run = 1; }
    }
    // N3: each 1:1:3:1:1 dark:light:dark:light:dark with four light modules before or after it
    // (beyond the symbol counts as light: the quiet zone).
    for (let k = 0; k + 7 <= size; k++) {
      if (line[k] && !line[k + 1] && line[k + 2] && line[k + 3] && line[k + 4] && !line[k + 5] && line[k + 6]
        && (light(line, k - 4, k) || light(line, k + 7, k + 11))) score += 40;
    }
  }
  for (let i = 0; i < size; i++) {
    for (let j = 0; j < size; j++) {
      if (m[i][j]) dark++;
      // N2: each 2×2 block of one colour scores 3.
      if (i && j && m[i][j] === m[i - 1][j] && m[i][j] === m[i][j - 1] && m[i][j] === m[i - 1][j - 1]) score += 3;
    }
  }
  // N4: 10 points for each full 5% step the dark share is away from 50%.
  return score + 10 * Math.floor(Math.abs(dark * 20 - size * size * 10) / (size * size));
}

export function qrMatrix(text, { ecc = 'M', mask } = {}) {
  if (typeof text !== 'string') throw new TypeError('QR: the text must be a string');
  if (!(ecc in LEVEL_BITS)) throw new RangeError(`QR: error correction level must be L, M, Q or H (not ${ecc})`);
  if (mask !== undefined && !(Number.isInteger(mask) && mask >= 0 && mask <= 7)) throw new RangeError(`QR: mask must be 0 to 7 (not ${mask})`);
  const bytes = new TextEncoder().encode(text);

  // §7.3.1: the smallest version whose data codewords hold mode, count and bytes.
  let version = 1;
  while (version <= 40 && 4 + (version < 10 ? 8 : 16) + 8 * bytes.length > 8 * dataCodewords(version, ecc)) version++;
  if (version > 40) {
    throw new RangeError(`QR: the text is ${bytes.length} bytes in UTF-8; at most ${dataCodewords(40, ecc) - 3} fit at error correction level ${ecc}`);
  }

  const size = version * 4 + 17;
  const modules = Array.from({ length: size }, () => new Array(size).fill(false));
  const isFunction = Array.from({ length: size }, () => new Array(size).fill(false));
  const set = (i, j, dark) => { modules[i][j] = dark; isFunction[i][j] = true; };

  // §6.3.5 timing patterns: alternating modules along row 6 and column 6.
  for (let k = 0; k < size; k++) { set(6, k, k % 2 === 0); set(k, 6, k % 2 === 0); }
  // §6.3.3 finder patterns (7×7 rings) with §6.3.4 separators (a light border) in three corners.
  for (const [ci, cj] of [[3, 3], [3, size - 4], [size - 4, 3]]) {
    for (let di = -4; di <= 4; di++) {
      for (let dj = -4; dj <= 4; dj++) {
        const i = ci + di, j = cj + dj, ring = Math.max(Math.abs(di), Math.abs(dj));
        if (i >= 0 && i < size && j >= 0 && j < size) set(i, j, ring !== 2 && ring !== 4);
      }
    }
  }
  // §6.3.6 alignment patterns (5×5 rings) on the Annex E grid, except where a finder pattern is.
  const centres = alignmentPositions(version), last = centres.length - 1;
  centres.forEach((ci, a) => centres.forEach((cj, b) => {
    if ((a === 0 && (b === 0 || b === last)) || (a === last && b === 0)) return;
    for (let di = -2; di <= 2; di++) for (let dj = -2; dj <= 2; dj++) set(ci + di, cj + dj, Math.max(Math.abs(di), Math.abs(dj)) !== 1);
  }));
  // Reserve the format (§7.9) and version (§7.10) areas and the dark module, light for now:
  // §7.1 fills them in only after the mask is chosen.
  for (const [i, j] of formatCells(size)) set(i, j, false);
  set(size - 8, 8, false);
  if (version >= 7) for (let k = 0; k < 18; k++) { set(Math.floor(k / 3), size - 11 + (k % 3), false); set(size - 11 + (k % 3), Math.floor(k / 3), false); }

  // §7.7.3 codeword placement: two-module-wide columns from the right, zigzagging up and down,
  // stepping over column 6 (the vertical timing pattern); leftover remainder bits stay light.
  const message = codewords(bytes, version, ecc);
  let bit = 0;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    const upward = ((right + 1) & 2) === 0;
    for (let v = 0; v < size; v++) {
      const i = upward ? size - 1 - v : v;
      for (const j of [right, right - 1]) {
        if (isFunction[i][j] || bit >= message.length * 8) continue;
        modules[i][j] = ((message[bit >>> 3] >>> (7 - (bit & 7))) & 1) === 1;
        bit++;
      }
    }
  }

  // §7.8 data masking: invert the encoding region by a pattern, so that no large blocks or
  // finder-like shapes confuse a reader. Every pattern is scored (§7.8.3) while the format and
  // version areas are still light: §7.1 adds them after masking (so do segno and python-qrcode;
  // ZXing scores with them drawn, and may pick another mask, as readable).
  const masked = (p) => modules.map((row, i) => row.map((dark, j) => (!isFunction[i][j] && MASKS[p](i, j) ? !dark : dark)));
  let chosen = mask, best = masked(mask ?? 0);
  if (mask === undefined) {
    let lowest = penalty(best);
    chosen = 0;
    for (let p = 1; p < 8; p++) {
      const candidate = masked(p), score = penalty(candidate);
      if (score < lowest) [chosen, best, lowest] = [p, candidate, score];
    }
  }

  // §7.9 format information: level and mask, BCH-protected and XOR 101010000010010 so it is never
  // all light; written twice. Then the always-dark module beside the lower-left finder.
  const format = bch((LEVEL_BITS[ecc] << 3) | chosen, 5, 0x537, 10) ^ 0x5412;
  formatCells(size).forEach(([i, j], k) => { best[i][j] = ((format >>> (k % 15)) & 1) === 1; });
  best[size - 8][8] = true;
  // §7.10 version information (version 7 and up): 18 bits, in a 6×3 block by each far finder.
  if (version >= 7) {
    const info = bch(version, 6, 0x1f25, 12);
    for (let k = 0; k < 18; k++) {
      const dark = ((info >>> k) & 1) === 1, a = Math.floor(k / 3), b = size - 11 + (k % 3);
      best[a][b] = dark;
      best[b][a] = dark;
    }
  }
  return { size, modules: best, version, ecc, mask: chosen };
}

const escapeXml = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// An SVG of the code: one path of the dark modules (a rectangle per horizontal run) over a light
// square that includes the quiet zone (§6.3.8 asks for 4 modules); crispEdges keeps the module
// edges sharp when the SVG is scaled.
export function qrSvg(text, { ecc, scale = 4, margin = 4, dark = '#000', light = '#fff', label = 'QR code', mask } = {}) {
  if (!(scale > 0)) throw new RangeError(`QR: scale must be above 0 (not ${scale})`);
  if (!(Number.isInteger(margin) && margin >= 0)) throw new RangeError(`QR: margin must be a whole number of modules (not ${margin})`);
  const { size, modules } = qrMatrix(text, { ecc, mask });
  const full = size + 2 * margin;
  let d = '';
  modules.forEach((row, i) => {
    for (let j = 0; j < size; j++) {
      if (!row[j]) continue;
      const start = j;
      while (j + 1 < size && row[j + 1]) j++;
      d += `M${start + margin} ${i + margin}h${j + 1 - start}v1h-${j + 1 - start}z`;
    }
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${full * scale}" height="${full * scale}" viewBox="0 0 ${full} ${full}"`
    + ` shape-rendering="crispEdges" role="img" aria-label="${escapeXml(label)}">`
    + (light ? `<rect width="${full}" height="${full}" fill="${escapeXml(light)}"/>` : '')
    + `<path fill="${escapeXml(dark)}" d="${d}"/></svg>`;
}
