// Colours, fonts and sizes the preview reads from styles (Public/js/preview-look.js). Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cssColour, isDark, sizeOf, lookOf, fontStack, contentNodes, lengthOf, familyFactor, textSizes, fit } from '../../Public/js/preview-look.js';

test('colours as apps write them', () => {
  assert.equal(cssColour('#FF0000'), '#ff0000');
  assert.equal(cssColour('#abc'), '#abc');
  assert.equal(cssColour('#FF112233'), '#112233', 'opaque #AARRGGBB');
  assert.equal(cssColour('#80112233'), 'rgba(17,34,51,0.502)', 'alpha first');
  assert.equal(cssColour('rgba(1, 2, 3, 0.5)'), 'rgba(1, 2, 3, 0.5)');
  assert.equal(cssColour('Red'), 'red');
  for (const bad of ['', '#12', 'url(x)', 'red;fill:blue', 42, null, 'none', '#GG0000', 'primary', 'bold']) assert.equal(cssColour(bad), null, String(bad));
});

test('dark backgrounds get light text', () => {
  assert.equal(isDark('#000000'), true);
  assert.equal(isDark('#1a1f36'), true);
  assert.equal(isDark('#ffffff'), false);
  assert.equal(isDark('#ffd166'), false);
  assert.equal(isDark('rgba(10,10,10,0.9)'), true);
  assert.equal(isDark(null), false);
});

test('sizes: numbers, numeric texts', () => {
  assert.equal(sizeOf(17), 17);
  assert.equal(sizeOf('17'), 17);
  assert.equal(sizeOf('17pt'), 17);
  assert.equal(sizeOf('big'), null);
  assert.equal(sizeOf(-3), null);
});

test('the look of a nav bar from its styles', () => {
  const look = lookOf({ background_color: '#FF1A1F36', title_color: '#FFFFD166', title_size: '20', ios_font_family: 'Avenir-Heavy', android_font_family: 'Roboto-Bold', presentation_style: 'logo', style: 'left' });
  assert.equal(look.background, '#1a1f36');
  assert.equal(look.text, '#ffd166');
  assert.equal(look.titleSize, 20);
  assert.equal(look.font, 'Avenir-Heavy');
  assert.equal(look.presentation, 'logo');
  assert.equal(look.align, 'left');
  assert.equal(lookOf({ android_font_family: 'Roboto-Bold' }, 'android').font, 'Roboto-Bold');
  const empty = lookOf(undefined);
  assert.equal(empty.background, null);
  assert.equal(empty.font, null);
  assert.match(fontStack('Avenir"; x', 'ios'), /^"Avenir x", -apple-system/);
  assert.match(fontStack(null, 'android'), /^Roboto/);
});

test('text sizes of a family’s cell content, scaled or fixed, in the server’s node order', () => {
  const family = {
    reference_size: { width: 320, height: 568 },
    cell_styles: [
      { id: 'A', content: { kind: 'stack', children: [{ kind: 'image' }, { kind: 'text', font_size: 15 }, { kind: 'stack', children: [{ kind: 'text', font_size: { fixed: 11 } }, { kind: 'text' }] }] } },
      { id: 'B' },
    ],
  };
  assert.deepEqual(contentNodes(family.cell_styles[0].content).map((n) => n.kind), ['stack', 'image', 'text', 'stack', 'text', 'text']);
  assert.equal(familyFactor(family, 640, 1136), 2);
  assert.equal(familyFactor(family, 390, 844), 390 / 320);
  assert.equal(lengthOf(10, 2), 20);
  assert.equal(lengthOf({ fixed: 10 }, 2), 10);
  assert.deepEqual(textSizes(family, 640, 1136), { A: [null, null, 30, null, 11, 28] });
  assert.deepEqual(textSizes(null, 1, 1), {});
});

test('texts are cut to fit', () => {
  assert.equal(fit('Hello', 100, 10), 'Hello');
  assert.equal(fit('Hello world, again', 40, 10), 'Hello…');
});
