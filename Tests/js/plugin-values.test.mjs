// The editor's writing of plugin values (Public/js/plugin-values.js) against the cases the server
// is checked with (Tests/Fixtures/vectors/plugin-values.json, SharedVectorTests.swift), and the
// plugins' own readings of those values, copied as a few lines each. Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { controlValue, isOn, valueForm } from '../../Public/js/plugin-values.js';

const vectors = JSON.parse(readFileSync(new URL('../Fixtures/vectors/plugin-values.json', import.meta.url))).vectors;

test('the editor writes each control value as the shared vectors say', () => {
  assert.ok(vectors.length >= 12);
  for (const v of vectors) {
    // The form field as GET /plugins/{id}/form gives it.
    const field = { key: v.field.key, type: v.field.type, initial_value: v.initial_value, value_form: v.value_form };
    for (const { input, value } of v.inputs) {
      assert.deepEqual(controlValue(field, input), value, `${v.name}: ${JSON.stringify(input)}`);
    }
    // Read back, a switch shows the state it was written with.
    if (['boolean', 'one_or_zero'].includes(v.value_form)) {
      for (const { input, value } of v.inputs) assert.equal(isOn(value), input, v.name);
    }
  }
});

test('without value_form (an older server) the form follows the type', () => {
  assert.equal(valueForm({ type: 'tag_select' }), 'choice');
  assert.equal(valueForm({ type: 'switch', initial_value: 'false' }), 'boolean');
  assert.equal(valueForm({ type: 'number_input' }), 'number_text');
  assert.equal(valueForm({ type: 'number_input', initial_value: 68 }), 'number');
});

// The plugins' own readings, as their code writes them (not their code: the few lines that read).
const ftueShowsImageButton = (styles) => styles.top_button_type === 'image'; // FTUE FloatingButton
const ftueHidesTopButton = (styles) => styles.is_top_button_hidden === '1'; // FTUE checkbox
const admobDrawsBackground = (loaded, styles) => Boolean(loaded && styles.background); // AdMob inline banner
const javaStringCast = (value) => { // Android: (String) styles.get(key) on a Gson map
  if (value === undefined || value === null || typeof value === 'string') return value ?? null;
  throw new TypeError(`ClassCastException: ${typeof value} cannot be cast to java.lang.String`);
};

function written(name, input) {
  const v = vectors.find((x) => x.field.key === name);
  return controlValue({ type: v.field.type, value_form: v.value_form }, input);
}

test('the plugins read what the editor writes as meant', () => {
  assert.equal(ftueShowsImageButton({ top_button_type: written('top_button_type', ['image']) }), true);
  assert.equal(ftueShowsImageButton({ top_button_type: written('top_button_type', ['text']) }), false);
  assert.equal(ftueHidesTopButton({ is_top_button_hidden: written('is_top_button_hidden', true) }), true);
  assert.equal(ftueHidesTopButton({ is_top_button_hidden: written('is_top_button_hidden', false) }), false);
  assert.equal(admobDrawsBackground(true, { background: written('background', false) }), false);
  assert.equal(admobDrawsBackground(true, { background: written('background', true) }), true);
  assert.equal(javaStringCast(written('number_font_size', '24')), '24');
  // What the plugins misread before: a one-element array, "true"/"false" strings, a number.
  assert.equal(ftueShowsImageButton({ top_button_type: ['image'] }), false);
  assert.equal(admobDrawsBackground(true, { background: 'false' }), true);
  assert.throws(() => javaStringCast(24));
});
