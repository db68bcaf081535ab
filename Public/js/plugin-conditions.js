// Whether a plugin form's field is shown and required, by the server's rules (RiversCore
// PluginValues.swift: `conditionsHold` and `matches`, used when a screen or component is saved).
// Both sides are checked against the same cases: Tests/Fixtures/vectors/plugin-conditions.json
// (Tests/js/ and Tests/browser/test_vectors.py here, Tests/RiversCoreTests/SharedVectorTests.swift
// there).
//
// - A field without conditions is shown.
// - A condition on another section holds: the server checks one section at a time and errs on the
//   strict side, so the editor shows every field the server may require.
// - A condition on the field's own section compares the section's value of the key (or, when the
//   key is absent, that field's initial value) with the condition's value: either may be an array
//   (any element of one equal to any element of the other); scalars are compared as text, so true
//   matches "true" and 2 matches "2"; null, objects and a missing value match nothing.
// - `conditions_match: "all"` (the manifest's `rules: "all_conditions"`) needs every condition;
//   otherwise one is enough.
// - Required: mandatory and shown.
//
// Fields are those of GET /apps/{app}/plugins/{identifier}/form: {key, type, initial_value,
// mandatory, conditions: [{section, key, value}], conditions_match, …}, groups {group: true, fields}.

/** A JSON number as the server writes it (whole numbers without a fraction). */
function numberText(n) {
  if (Number.isInteger(n) && Math.abs(n) < 1e15) return String(n === 0 ? 0 : n);
  return String(n);
}

/** A scalar as text, or null for what is not a scalar (null, arrays, objects). */
export function plainText(value) {
  switch (typeof value) {
    case 'string': return value;
    case 'number': return Number.isFinite(value) ? numberText(value) : null;
    case 'boolean': return value ? 'true' : 'false';
    default: return null;
  }
}

/** `actual` (or one of its elements) equals `expected` (or one of its elements), as text. */
export function matches(actual, expected) {
  if (actual === undefined) return false;
  const texts = (v) => (Array.isArray(v) ? v : [v]).map(plainText).filter((t) => t !== null);
  const wanted = texts(expected);
  return texts(actual).some((t) => wanted.includes(t));
}

/** Every field of a list of form items, groups flattened, in order. */
export function flatFields(items) {
  const out = [];
  for (const item of items || []) {
    if (item?.group) out.push(...flatFields(item.fields));
    else if (item) out.push(item);
  }
  return out;
}

/** The fields of one section of a form, groups flattened. */
export function sectionFields(form, section) {
  const found = (form?.sections || []).find((s) => s.name === section);
  return flatFields(found?.fields);
}

/**
 * The value a condition looks at: the one given, or (when the key is absent) the initial value
 * of the section's field of that key. A key given as null stays null.
 */
export function valueOf(key, values, fields) {
  if (values && Object.prototype.hasOwnProperty.call(values, key) && values[key] !== undefined) return values[key];
  const field = (fields || []).find((f) => f.key === key);
  const initial = field?.initial_value;
  return initial === null ? undefined : initial;
}

/**
 * Whether a field's conditions hold in `section`, given that section's `values` and its `fields`
 * (flattened; for the initial values).
 */
export function conditionsHold(field, { section, values, fields }) {
  const conditions = field?.conditions || [];
  if (!conditions.length) return true;
  const results = conditions.map((c) => {
    if (c.section !== section) return true;
    return matches(valueOf(c.key, values, fields), c.value);
  });
  return field.conditions_match === 'all' ? results.every(Boolean) : results.some(Boolean);
}

/** Shown: its conditions hold. */
export function isShown(field, context) { return conditionsHold(field, context); }

/** Required: mandatory and shown (the server then refuses it empty). */
export function isRequired(field, context) { return Boolean(field?.mandatory) && conditionsHold(field, context); }
