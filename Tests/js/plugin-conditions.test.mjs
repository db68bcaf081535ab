// Whether a plugin form's field is shown and required (Public/js/plugin-conditions.js), against
// every case of Tests/Fixtures/vectors/plugin-conditions.json (also run by SharedVectorTests.swift
// and Tests/browser/test_vectors.py), then rule by rule. Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  plainText, matches, flatFields, sectionFields, valueOf, conditionsHold, isShown, isRequired,
} from '../../Public/js/plugin-conditions.js';

const vectors = JSON.parse(readFileSync(new URL('../Fixtures/vectors/plugin-conditions.json', import.meta.url))).vectors;

/**
 * A vector's manifest sections as GET /plugins/{id}/form gives them (RiversCore PluginForm.swift,
 * PluginFormField.init from a ManifestField): `conditional_fields: [{key: "section/key",
 * condition_value}]` become `conditions: [{section, key, value}]`, `rules: "all_conditions"`
 * becomes `conditions_match: "all"` (else "any"), a missing initial value null. The browser suite
 * asks the server for the form; here it is written by hand, so what this does not model fails.
 */
function formOf(sections) {
  const item = (f) => {
    if (f.group) return { group: true, label: f.label ?? null, folded: Boolean(f.folded), fields: f.fields.map(item) };
    const modelled = new Set(['key', 'type', 'mandatory', 'initial_value', 'options', 'conditional_fields', 'rules', 'label']);
    for (const k of Object.keys(f)) if (!modelled.has(k)) throw new Error(`formOf does not model "${k}" (field ${f.key})`);
    // The server normalises initial values to the field's type; the vectors write them normalised.
    if (['switch', 'checkbox'].includes(f.type) && f.initial_value !== undefined) assert.equal(typeof f.initial_value, 'boolean', f.key);
    return {
      key: f.key, type: f.type, initial_value: f.initial_value ?? null, mandatory: f.mandatory ?? false,
      conditions: (f.conditional_fields || []).map((c) => {
        const at = c.key.indexOf('/');
        return { section: c.key.slice(0, at), key: c.key.slice(at + 1), value: c.condition_value };
      }),
      conditions_match: f.rules === 'all_conditions' ? 'all' : 'any',
    };
  };
  return { sections: Object.entries(sections).map(([name, s]) => ({ name, fields: s.fields.map(item) })) };
}

test('every shared vector: each field listed is shown and required as the vector says', () => {
  assert.ok(vectors.length >= 20);
  let checkedVectors = 0;
  let checkedFields = 0;
  for (const vector of vectors) {
    const form = formOf(vector.sections);
    const fields = sectionFields(form, vector.section);
    const context = { section: vector.section, values: vector.values, fields };
    const expectedKeys = Object.keys(vector.fields);
    assert.ok(expectedKeys.length > 0, `${vector.name}: lists no field`);
    for (const key of expectedKeys) {
      const field = fields.find((f) => f.key === key);
      assert.ok(field, `${vector.name}: no field ${key}`);
      assert.deepEqual({ shown: isShown(field, context), required: isRequired(field, context) }, vector.fields[key], `${vector.name}, ${key}`);
      checkedFields += 1;
    }
    checkedVectors += 1;
  }
  assert.equal(checkedVectors, vectors.length);
  assert.equal(checkedFields, vectors.reduce((n, v) => n + Object.keys(v.fields).length, 0));
});

test('scalars as text, as the server writes them', () => {
  assert.equal(plainText('a'), 'a');
  assert.equal(plainText(''), '');
  assert.equal(plainText(2), '2');
  assert.equal(plainText(2.0), '2');
  assert.equal(plainText(-0), '0');
  assert.equal(plainText(1.5), '1.5');
  assert.equal(plainText(true), 'true');
  assert.equal(plainText(false), 'false');
  for (const none of [null, undefined, NaN, Infinity, [1], { a: 1 }]) assert.equal(plainText(none), null, String(none));
});

test('matching: any element of one equal to any element of the other, as text', () => {
  assert.equal(matches(true, 'true'), true);
  assert.equal(matches('2', 2), true);
  assert.equal(matches(2, '2.0'), false, 'text, not numbers');
  assert.equal(matches(['a', 'b'], ['c', 'b']), true);
  assert.equal(matches(['a', 'b'], ['c', 'd']), false);
  assert.equal(matches('b', ['a', 'b']), true);
  assert.equal(matches([], 'a'), false);
  assert.equal(matches('a', []), false);
  assert.equal(matches(undefined, 'undefined'), false);
  assert.equal(matches(null, null), false, 'null matches nothing');
  assert.equal(matches({ a: 1 }, '[object Object]'), false, 'objects match nothing');
  assert.equal(matches([null, 'x'], [null, 'x']), true, 'the null elements left out, the rest compared');
  assert.equal(matches('', ''), true);
});

test('form items: groups flattened in order, at any depth; a section\'s fields', () => {
  const items = [{ key: 'a' }, { group: true, fields: [{ key: 'b' }, { group: true, fields: [{ key: 'c' }] }] }, null, { key: 'd' }];
  assert.deepEqual(flatFields(items).map((f) => f.key), ['a', 'b', 'c', 'd']);
  assert.deepEqual(flatFields(undefined), []);
  const form = { sections: [{ name: 'general', fields: items }, { name: 'styles', fields: [{ key: 's' }] }] };
  assert.deepEqual(sectionFields(form, 'styles').map((f) => f.key), ['s']);
  assert.deepEqual(sectionFields(form, 'data'), []);
  assert.deepEqual(sectionFields(null, 'general'), []);
});

test('the value a condition looks at: given, else the field\'s initial value; a null given stays null', () => {
  const fields = [{ key: 'mode', initial_value: 'fancy' }, { key: 'bare', initial_value: null }];
  assert.equal(valueOf('mode', { mode: 'plain' }, fields), 'plain');
  assert.equal(valueOf('mode', {}, fields), 'fancy');
  assert.equal(valueOf('mode', { mode: undefined }, fields), 'fancy');
  assert.equal(valueOf('mode', undefined, fields), 'fancy');
  assert.equal(valueOf('mode', { mode: null }, fields), null);
  assert.equal(valueOf('bare', {}, fields), undefined);
  assert.equal(valueOf('source', {}, fields), undefined, 'a key no field declares');
  assert.equal(valueOf('mode', Object.create({ mode: 'inherited' }), fields), 'fancy', 'own members only');
});

test('conditions: any by default, all when asked; conditions on another section hold', () => {
  const field = (conditions, match) => ({ key: 'f', mandatory: true, conditions, conditions_match: match });
  const a = { section: 'general', key: 'a', value: 1 };
  const b = { section: 'general', key: 'b', value: 'x' };
  const other = { section: 'styles', key: 'theme', value: 'dark' };
  const context = { section: 'general', values: { a: 1, b: 'y' }, fields: [] };
  assert.equal(conditionsHold(field([a, b]), context), true);
  assert.equal(conditionsHold(field([a, b], 'all'), context), false);
  assert.equal(conditionsHold(field([a, b], 'any'), { ...context, values: { a: 2, b: 'y' } }), false);
  assert.equal(conditionsHold(field([other]), context), true);
  assert.equal(conditionsHold(field([other, b], 'all'), context), false);
  assert.equal(conditionsHold(field([other, b], 'all'), { ...context, values: { b: 'x' } }), true);
  assert.equal(conditionsHold(field([]), context), true);
  assert.equal(conditionsHold({ key: 'g' }, context), true);
  assert.equal(conditionsHold(null, context), true);
});

test('required: mandatory and shown', () => {
  const context = { section: 'general', values: { on: false }, fields: [] };
  const when = [{ section: 'general', key: 'on', value: true }];
  assert.equal(isRequired({ mandatory: true }, context), true);
  assert.equal(isRequired({ mandatory: false }, context), false);
  assert.equal(isRequired({}, context), false);
  assert.equal(isRequired({ mandatory: true, conditions: when }, context), false);
  assert.equal(isShown({ mandatory: true, conditions: when }, context), false);
  assert.equal(isRequired({ mandatory: true, conditions: when }, { ...context, values: { on: 'true' } }), true);
});
