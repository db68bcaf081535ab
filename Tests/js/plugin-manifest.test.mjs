// Plugin manifests on the Plugins page (Public/js/plugin-manifest.js): reading pasted text, what a
// manifest is in words, the server's problems in the words of the page, and where a plugin is used.
// Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readManifest, manifestSummary, manifestPlace, manifestProblem, pluginUses, pluginKind } from '../../Public/js/plugin-manifest.js';

const MANIFEST = {
  identifier: 'promo', name: 'Promo', type: 'general', screen: true, manifest_version: '1.2.0',
  general: { fields: [
    { key: 'title', type: 'text_input', label: 'Title' },
    { group: true, label: 'Colours', fields: [{ key: 'bg', type: 'color_picker' }, { key: 'fg', type: 'bogus', label: 'Text colour' }] },
  ] },
  styles: { fields: [{ key: 'size', type: 'select', options: [{ text: 'A', value: 1 }, 'B'] }] },
};

test('pasted text: a manifest, or a JSON mistake said by line and column', () => {
  assert.deepEqual(readManifest('{"identifier": "x"}'), { manifest: { identifier: 'x' } });
  const bad = readManifest('{\n  "identifier": "x",\n  "name" "y"\n}');
  assert.equal(bad.line, 3);
  assert.equal(bad.column, 10);
  assert.match(bad.problem, /^This is not valid JSON \(line 3, column 10\)/);
  assert.ok(readManifest('{"a": 1').problem.startsWith('This is not valid JSON'));
  assert.equal(readManifest('  ').problem, 'Paste a manifest, or choose its file.');
  assert.match(readManifest('[1, 2]').problem, /one JSON object/);
  assert.match(readManifest('"text"').problem, /one JSON object/);
});

test('a manifest in one line', () => {
  assert.equal(manifestSummary(MANIFEST), 'Screen plugin “Promo” (promo), version 1.2.0, 4 fields in General and Styles.');
  assert.equal(manifestSummary({ type: 'ui_component' }), 'Component plugin (no name) (no identifier), no version, 0 fields.');
  assert.equal(manifestSummary({ name: 'L', identifier: 'l', type: 'general', manifest_version: '1', custom_configuration_fields: [{ key: 'a', type: 'text' }] }),
    'Plugin (general) “L” (l), version 1, 1 field.');
  assert.equal(manifestSummary(null), '');
});

test('what kind of plugin', () => {
  assert.equal(pluginKind({ screen: true, type: 'general' }), 'Screen plugin');
  assert.equal(pluginKind({ ui_component: true, type: 'ui_component' }), 'Component plugin');
  assert.equal(pluginKind({ type: 'nav_bar' }), 'Navigation plugin');
  assert.equal(pluginKind({ type: 'general' }), 'Plugin (general)');
  assert.equal(pluginKind({}), 'Plugin');
});

test('a pointer into a manifest in words: sections, fields by label and key, groups, options', () => {
  assert.equal(manifestPlace('/name', MANIFEST), 'Name');
  assert.equal(manifestPlace('/author_email', MANIFEST), 'Author’s email');
  assert.equal(manifestPlace('', MANIFEST), 'The manifest');
  assert.equal(manifestPlace('/general/fields/0/type', MANIFEST), 'General section, field “Title” (title) › type');
  assert.equal(manifestPlace('/general/fields/1/fields/1/type', MANIFEST), 'General section, group “Colours”, field “Text colour” (fg) › type');
  assert.equal(manifestPlace('/general/fields/1/fields/0', MANIFEST), 'General section, group “Colours”, field “bg”');
  assert.equal(manifestPlace('/styles/fields/0/options/1/value', MANIFEST), 'Styles section, field “size” › option 2 › value');
  assert.equal(manifestPlace('/styles/fields/7/key', MANIFEST), 'Styles section, field 8 › key', 'a field that is not there: its number');
  assert.equal(manifestPlace('/custom_configuration_fields/0/type', { custom_configuration_fields: [{ key: 'k' }] }), 'Configuration fields, field “k” › type');
  assert.equal(manifestPlace('/characteristics/can_have_components', MANIFEST), 'Characteristics › can have components');
  assert.equal(manifestPlace('/a~1b', {}), 'A/b');
});

test('a problem of the server in the words of the page', () => {
  assert.equal(manifestProblem({ pointer: '/description', message: '"description" is required' }, MANIFEST), 'Description: missing (the manifest must have it)');
  assert.equal(manifestProblem({ pointer: '/general/fields/1/fields/1/type', message: 'unknown field type "bogus"' }, MANIFEST),
    'General section, group “Colours”, field “Text colour” (fg) › type: unknown field type “bogus”');
  assert.equal(manifestProblem({ pointer: '/name', message: 'must not be empty' }, {}), 'Name: must not be empty');
});

test('where a plugin is used: screens of its type, its components (in groups), hooks, navigations; layouts', () => {
  const screens = [
    { id: 's1', name: 'Promo', type: 'promo' },
    { id: 's2', name: 'Home', type: 'general_content', ui_components: [
      { component_type: 'list' },
      { component_type: 'group', ui_components: [{ component_type: 'promo' }] },
      { component_type: 'promo' },
    ], hooks: { preload_plugins: [{ identifier: 'promo' }], postload_plugins: [] }, navigations: [{ navigation_type: 'promo' }] },
    { id: 's3', name: 'Other', ui_components: [{ component_type: 'list' }], hooks: { preload_plugins: [{ identifier: 'other' }] } },
  ];
  const layouts = [{ id: 'L1', name: 'Tabs', ui_components: [{ component_type: 'promo' }] }, { id: 'L2', name: 'Plain', ui_components: [] }];
  const uses = pluginUses('promo', screens, layouts, { typeName: (t) => ({ list: 'List', group: 'Group', promo: 'Promo' })[t] });
  assert.deepEqual(uses, [
    { kind: 'screen', id: 's1', name: 'Promo', via: ['type'], components: [] },
    { kind: 'screen', id: 's2', name: 'Home', via: ['component', 'hook', 'navigation'], components: ['Promo 1 in Group 2', 'Promo 3'] },
    { kind: 'layout', id: 'L1', name: 'Tabs', via: ['component'], components: ['Promo 1'] },
  ]);
  assert.deepEqual(pluginUses('nobody', screens, layouts), []);
  assert.deepEqual(pluginUses('x'), []);
});
