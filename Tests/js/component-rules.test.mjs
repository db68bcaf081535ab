// The editor's component rules (Public/js/component-rules.js): the data source type a component
// may have (the server's rule for a plugin identifier) and the cell style a new component starts
// with. Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultCellStyle, sourceTypeProblem, sourceTypeProblems, PLUGIN_IDENTIFIER } from '../../Public/js/component-rules.js';

test('known types, plugin identifiers and nothing are accepted', () => {
  for (const type of ['', null, undefined, 'APPLICASTER_COLLECTION', 'WEB_URL', 'MY_PLUGIN_FEED', 'zee5.feed-v2', '7', 'a'.repeat(100)]) {
    assert.equal(sourceTypeProblem(type), '', String(type));
  }
});

test('a type no plugin can have is refused in words, with the field label', () => {
  const message = sourceTypeProblem('bad type!');
  assert.match(message, /^Custom source type: “bad type!” cannot be a data-source plugin’s type/);
  assert.match(message, /no spaces/);
  assert.match(sourceTypeProblem('_hidden'), /start with a letter or a digit/);
  assert.match(sourceTypeProblem('A'.repeat(101)), /101 characters, at most 100/);
  assert.match(sourceTypeProblem('favorites'), /screen type/);
  assert.match(sourceTypeProblem('x y', 'Source type'), /^Source type: /);
});

test('the pattern is the server’s PluginId pattern (openapi.json)', async () => {
  const { readFileSync } = await import('node:fs');
  const document = JSON.parse(readFileSync(new URL('../../Sources/RiversServer/openapi.json', import.meta.url)));
  assert.equal(PLUGIN_IDENTIFIER.source, document.components.parameters.PluginId.schema.pattern);
});

test('problems are found in nested components, with their pointers', () => {
  const problems = sourceTypeProblems([
    { data: { type: 'APPLICASTER_COLLECTION' } },
    { data: null, ui_components: [{ data: { type: 'ok' } }, { data: { type: 'no good' } }] },
  ]);
  assert.deepEqual(problems.map((p) => p.pointer), ['/ui_components/1/ui_components/1/data/type']);
});

const family = (styles) => ({
  reference_size: { width: 320, height: 568 }, insets: { top: 10, left: 10, bottom: 10, right: 10 },
  interitem_spacing: 10, line_spacing: 10, cell_styles: styles,
});

test('a new hero takes a full-width style shaped like a picture, nearest 16:9', () => {
  const f = family([
    { id: 'LIST_1', columns: 1, height: 80 },
    { id: 'GRID_1', columns: 2, aspect_ratio: 1.7778 },
    { id: 'SQUARE', columns: 1, aspect_ratio: 1 },
    { id: 'HERO_1', columns: 1, aspect_ratio: '16:9' },
  ]);
  assert.equal(defaultCellStyle(f, 'hero'), 'HERO_1');
  assert.equal(defaultCellStyle(f, 'list'), 'LIST_1');
  assert.equal(defaultCellStyle(f, 'grid'), 'GRID_1');
  // Points wide: 300 of the 300 available is full width.
  assert.equal(defaultCellStyle(family([{ id: 'ROW', columns: 1, height: 80 }, { id: 'WIDE', width: 300, aspect_ratio: 2 }]), 'hero'), 'WIDE');
});

test('without a picture-shaped full-width style, a hero takes the tallest full-width one', () => {
  assert.equal(defaultCellStyle(family([{ id: 'LIST_1', columns: 1, height: 80 }, { id: 'GRID_1', columns: 2, aspect_ratio: 1.7778 },
    { id: 'TALL', columns: 1, height: 200 }]), 'hero'), 'TALL');
  assert.equal(defaultCellStyle(family([{ id: 'GRID_1', columns: 2, aspect_ratio: 1.7778 }]), 'hero'), 'GRID_1');
  assert.equal(defaultCellStyle(family([]), 'hero'), null);
});
