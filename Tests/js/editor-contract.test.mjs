// The bounds and choices the editor's pure modules keep (to draw a family's cells and a cell's
// content designer before asking the server) against the document the server serves
// (Sources/RiversServer/openapi.json, which OpenAPIContractTests checks against the server's own
// constants): a change on the server that the editor did not follow fails here.
// Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { LIMITS } from '../../Public/js/family-math.js';
import { SOURCE_TYPES, PLUGIN_IDENTIFIER } from '../../Public/js/component-rules.js';
import { STORES, VERSION_PATTERN, CHANNEL_PATTERN, channelNameProblem } from '../../Public/js/release-rules.js';
import {
  KINDS, KIND_NAMES, CONTENT_LIMITS, AXES, STACK_ALIGNMENTS, DISTRIBUTIONS, ALIGNS, PLACEHOLDERS, ROLES, SIDES, FRAME_KEYS,
  COMMON_MEMBERS, KIND_MEMBERS,
} from '../../Public/js/cell-content.js';

const doc = JSON.parse(readFileSync(new URL('../../Sources/RiversServer/openapi.json', import.meta.url), 'utf8'));
const schemas = doc.components.schemas;
const property = (schema, name) => {
  const p = schemas[schema]?.properties?.[name];
  assert.ok(p, `${schema}.${name} is in openapi.json`);
  return p;
};
/** A nullable `anyOf`'s first form (the number), else the property itself. */
const form = (p) => p.anyOf?.[0] ?? p;
const choices = (p) => p.enum.filter((v) => v !== null);

test('a family’s bounds are the document’s', () => {
  assert.equal(LIMITS.maxLength, form(property('CellStyle', 'width')).maximum);
  assert.equal(LIMITS.maxLength, form(property('Family', 'interitem_spacing')).maximum);
  assert.equal(LIMITS.maxLength, form(property('Family', 'line_spacing')).maximum);
  assert.equal(LIMITS.maxCellHeight, form(property('CellStyle', 'height')).maximum);
  assert.equal(LIMITS.minAspectRatio, property('CellStyle', 'aspect_ratio').minimum);
  assert.equal(LIMITS.maxAspectRatio, property('CellStyle', 'aspect_ratio').maximum);
  assert.equal(LIMITS.maxColumns, property('CellStyle', 'columns').maximum);
});

test('a cell’s content: its bounds, kinds, members and choices are the document’s', () => {
  const content = property('CellStyle', 'content');
  assert.equal(CONTENT_LIMITS.maxNodes, content['x-max-nodes']);
  assert.equal(CONTENT_LIMITS.maxDepth, content['x-max-depth']);
  assert.equal(CONTENT_LIMITS.maxNodes - 1, property('ContentNode', 'children').maxItems);
  assert.equal(CONTENT_LIMITS.maxLines, property('ContentNode', 'max_lines').maximum);

  assert.deepEqual(KINDS, property('ContentNode', 'kind').enum);
  assert.deepEqual(Object.keys(KIND_NAMES), KINDS);
  assert.deepEqual(Object.keys(KIND_MEMBERS).sort(), Object.keys(KIND_NAMES).sort());
  const members = new Set([...COMMON_MEMBERS, ...Object.values(KIND_MEMBERS).flat()]);
  assert.deepEqual([...members].sort(), Object.keys(schemas.ContentNode.properties).sort());

  assert.deepEqual(AXES, choices(property('ContentNode', 'axis')));
  assert.deepEqual(STACK_ALIGNMENTS, choices(property('ContentNode', 'alignment')));
  assert.deepEqual(DISTRIBUTIONS, choices(property('ContentNode', 'distribution')));
  assert.deepEqual(ALIGNS, choices(property('ContentNode', 'align')));
  assert.deepEqual(PLACEHOLDERS, choices(property('ContentNode', 'placeholder')));
  assert.deepEqual(ROLES, choices(property('ContentNode', 'role')));
  assert.deepEqual(FRAME_KEYS, Object.keys(property('ContentNode', 'frame').properties));
  const paddingSides = property('ContentNode', 'padding').anyOf.find((f) => f.type === 'object');
  assert.deepEqual(SIDES, Object.keys(paddingSides.properties));
});

// The editor's text inputs stop at the server's lengths: each input's `maxlength` (read from the
// view's source: the views need a DOM) against the member of the request it fills.
test('every bounded input of the editor stops where the server does', () => {
  const inputs = [
    ['views/tokens.js', 'token-name', 'NewTokenRequest', 'name'],
    ['views/settings.js', 'app-name-input', 'AppSettings', 'name'],
    ['views/settings.js', 'app-slug-input', 'AppSettings', 'slug'],
    ['views/webhooks.js', 'webhook-url', 'NewWebhookRequest', 'url'],
    ['views/webhooks.js', 'webhook-description', 'NewWebhookRequest', 'description'],
    ['views/releases.js', 'promote-note', 'MoveChannelRequest', 'note'],
    ['views/releases.js', 'new-channel-name', 'Channel', 'name'],
    ['views/releases.js', 'preview-link-name', 'NewPreviewLinkRequest', 'name'],
    ['views/publish.js', 'publish-dialog-note', 'PublishRequest', 'note'],
  ];
  for (const [file, id, schema, member] of inputs) {
    const source = readFileSync(new URL(`../../Public/js/${file}`, import.meta.url), 'utf8');
    const line = source.split('\n').find((l) => l.includes(`id: '${id}'`));
    assert.ok(line, `${file} has the input ${id}`);
    const given = Number(/maxlength: (\d+)/.exec(line)?.[1]);
    assert.equal(given, property(schema, member).maxLength, `${id} (${file}) against ${schema}.${member}`);
  }
});

test('release rules: the stores, the version and channel patterns are the document’s', () => {
  assert.deepEqual(STORES.map((s) => s.id), choices(property('ReleaseRule', 'store')));
  assert.equal(VERSION_PATTERN.source, property('ReleaseRule', 'from_version').pattern);
  assert.equal(VERSION_PATTERN.source, property('ReleaseRule', 'below_version').pattern);
  assert.equal(CHANNEL_PATTERN.source, property('ReleaseRule', 'channel').pattern);
  assert.equal(CHANNEL_PATTERN.source, property('Channel', 'name').pattern);
  const longest = property('Channel', 'name').maxLength;
  assert.equal(channelNameProblem('a'.repeat(longest)), '');
  assert.notEqual(channelNameProblem('a'.repeat(longest + 1)), '');
});

test('the data source types apps know are the document’s', () => {
  assert.deepEqual(SOURCE_TYPES.map((t) => t.value), property('ComponentData', 'type')['x-known-types']);
  assert.equal(PLUGIN_IDENTIFIER.source, doc.components.parameters.PluginId.schema.pattern);
});
