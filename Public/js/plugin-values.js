// How a plugin field's value is written: the server's one rule per field type
// (docs/spec/plugin-values.md, RiversCore ManifestField.valueForm), which the form of
// GET /plugins/{id}/form gives each field as `value_form`. The editor writes what a control gives
// in that form, so the server has nothing to rewrite. Checked against the same cases as the server
// (Tests/Fixtures/vectors/plugin-values.json: Tests/js/plugin-values.test.mjs, Tests/browser/test_vectors.py).

/** The form of a field's values; a server that does not say gets the form by type alone. */
export function valueForm(field) {
  if (field.value_form) return field.value_form;
  switch (field.type) {
    case 'switch': case 'checkbox': return 'boolean';
    case 'number_input': return typeof field.initial_value === 'number' ? 'number' : 'number_text';
    case 'select': case 'dropdown': case 'tag_select': return 'choice';
    case 'multi_select': case 'tags': return 'choices';
    default: return 'as_typed';
  }
}

/** Whether a switch's value is on, however it was written (true, "true", "1", 1). */
export function isOn(value) {
  return value === true || value === 1 || (typeof value === 'string' && ['true', '1'].includes(value.trim().toLowerCase()));
}

/**
 * The value to write for what a control gives: a switch's checked state, a number's typed text,
 * the chosen option values (an array). `null` means "not set".
 */
export function controlValue(field, input) {
  switch (valueForm(field)) {
    case 'boolean': return Boolean(input);
    case 'one_or_zero': return input ? '1' : '0';
    case 'number': case 'number_text': {
      const text = String(input ?? '').trim();
      if (text === '') return null;
      return valueForm(field) === 'number' ? Number(text) : text;
    }
    case 'choice': return Array.isArray(input) ? (input.length ? input[0] : null) : input;
    case 'choices': return Array.isArray(input) ? input : [input];
    default: return input;
  }
}
