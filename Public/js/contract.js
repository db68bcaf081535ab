// The contract the server serves (GET /api/openapi.json), read by the editor to check a body
// before it asks the server: the schemas' types, limits, enums, patterns and required members, so
// that every problem of a save shows at once (and a preview known to be refused is never sent).
// A small JSON Schema reader (the keywords openapi.json uses), with no DOM and no state: tested
// on its own against the real document (Tests/js/contract.test.mjs). What it cannot tell (ids in
// use, screens that exist) the server still says.

const REF = '#/components/schemas/';

/** Numbers as people write them: 10,000. */
function num(n) {
  return Number.isInteger(n) ? n.toLocaleString('en-US') : String(n);
}

function jsonType(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value; // string, boolean, object
}

function typeMatches(type, value) {
  const actual = jsonType(value);
  return type === actual || (type === 'number' && actual === 'integer');
}

const TYPE_WORDS = {
  number: 'a number', integer: 'a whole number', string: 'text', boolean: 'true or false',
  object: 'a group of values', array: 'a list', null: 'empty',
};

function typeMessage(types) {
  const words = [...new Set(types.filter((t) => t !== 'null').map((t) => TYPE_WORDS[t] || t))];
  if (!words.length) return 'must be empty';
  return `must be ${words.join(' or ')}`;
}

/** The patterns of the document in words (the rest: "is not in a form this field takes"). */
function patternMessage(pattern) {
  if (/^\^\[A-Z0-9_\]\{1,100\}\$$/.test(pattern)) return 'use only upper-case letters, digits and _ (like GRID_1)';
  if (/^\^\[A-Za-z0-9_\.-\]\{1,100\}\$$/.test(pattern) || pattern === '^[A-Za-z0-9_.-]{1,100}$') return 'use only letters, digits, _, - and . (at most 100)';
  if (pattern === '^[^\\u0000]*$') return 'must not hold a NUL character';
  if (pattern.startsWith('^[^\\u0000]*[^\\u0000')) return 'must not be blank';
  if (pattern.startsWith('^[0-9A-Fa-f]{8}-')) return 'must name one of the app’s screens';
  if (pattern.includes('[Jj][Aa][Vv][Aa]')) return 'must be a web address like https://example.com (never javascript:, data: or file:)';
  if (pattern.includes('[0-9]{1,9}') || pattern.includes('[0-9]{1,4}')) return 'must be a whole number';
  return 'is not in a form this field takes';
}

const regexCache = new Map();
function regex(pattern) {
  if (!regexCache.has(pattern)) {
    let re;
    try { re = new RegExp(pattern, 'u'); } catch {
      try { re = new RegExp(pattern); } catch { re = null; }
    }
    regexCache.set(pattern, re);
  }
  return regexCache.get(pattern);
}

/**
 * A reader of one OpenAPI document. `validate(name, value)` checks `value` against the schema
 * `components.schemas[name]` and answers every problem as [{pointer, message}] (pointers into
 * `value`, as the server's 422 gives them). Members marked readOnly are not checked (the server
 * ignores them).
 */
export class Contract {
  constructor(doc) {
    this.doc = doc;
    this.schemas = doc?.components?.schemas || {};
  }

  has(name) { return Boolean(this.schemas[name]); }

  /** The schema a $ref names. */
  resolve(schema) {
    let s = schema;
    for (let i = 0; s && typeof s === 'object' && typeof s.$ref === 'string' && i < 20; i += 1) {
      s = s.$ref.startsWith(REF) ? this.schemas[s.$ref.slice(REF.length)] : undefined;
    }
    return s;
  }

  validate(name, value) {
    const schema = this.schemas[name];
    if (!schema) return [];
    const out = [];
    this.check(schema, value, '', out);
    return dedupe(out);
  }

  /** True when `value` meets `schema` (no problems). */
  passes(schema, value) {
    const out = [];
    this.check(schema, value, '', out);
    return out.length === 0;
  }

  check(raw, value, pointer, out) {
    const schema = this.resolve(raw);
    if (!schema || typeof schema !== 'object' || value === undefined) return;
    if (schema.allOf) for (const s of schema.allOf) this.check(s, value, pointer, out);
    if (schema.anyOf || schema.oneOf) this.checkBranches(schema.anyOf || schema.oneOf, value, pointer, out);
    if (schema.not && this.passes(schema.not, value)) out.push({ pointer, message: 'is not allowed here' });
    if (schema.if && this.passes(schema.if, value)) {
      if (schema.then) this.check(schema.then, value, pointer, out);
    } else if (schema.if && schema.else) {
      this.check(schema.else, value, pointer, out);
    }

    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      if (!types.some((t) => typeMatches(t, value))) { out.push({ pointer, message: typeMessage(types) }); return; }
    }
    if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) {
      out.push({ pointer, message: `must be ${JSON.stringify(schema.const)}` });
      return;
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
      const choices = schema.enum.filter((e) => e !== null).map((e) => JSON.stringify(e));
      out.push({ pointer, message: choices.length <= 8 ? `must be one of ${choices.join(', ')}` : 'is not one of the choices' });
      return;
    }

    const type = jsonType(value);
    if (type === 'number' || type === 'integer') this.checkNumber(schema, value, pointer, out);
    else if (type === 'string') this.checkString(schema, value, pointer, out);
    else if (type === 'array') this.checkArray(schema, value, pointer, out);
    else if (type === 'object') this.checkObject(schema, value, pointer, out);
  }

  /** anyOf / oneOf: met when one branch is met; else the problems of the branch meant (the one
   *  of the value's type, or the nearest), or a type message. */
  checkBranches(branches, value, pointer, out) {
    const results = branches.map((b) => {
      const found = [];
      this.check(b, value, pointer, found);
      return { schema: this.resolve(b), found };
    });
    if (results.some((r) => r.found.length === 0)) return;
    const typed = results.filter((r) => {
      const t = r.schema?.type;
      if (t === undefined) return true;
      // A fraction meant for a whole number is that branch's ("must be a whole number").
      return (Array.isArray(t) ? t : [t]).some((x) => typeMatches(x, value) || (x === 'integer' && typeof value === 'number'));
    });
    if (!typed.length) {
      const types = results.flatMap((r) => {
        const t = r.schema?.type;
        return t === undefined ? [] : (Array.isArray(t) ? t : [t]);
      });
      out.push({ pointer, message: types.length ? typeMessage(types) : 'is not in a form this field takes' });
      return;
    }
    const best = typed.reduce((a, b) => (b.found.length < a.found.length ? b : a));
    out.push(...best.found);
  }

  checkNumber(schema, value, pointer, out) {
    if (!Number.isFinite(value)) { out.push({ pointer, message: 'must be a number' }); return; }
    if (schema.minimum !== undefined && value < schema.minimum) {
      out.push({ pointer, message: schema.minimum === 0 ? 'must not be negative' : `must be at least ${num(schema.minimum)}` });
    } else if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) {
      out.push({ pointer, message: `must be more than ${num(schema.exclusiveMinimum)}` });
    }
    if (schema.maximum !== undefined && value > schema.maximum) out.push({ pointer, message: `must be at most ${num(schema.maximum)}` });
    else if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) out.push({ pointer, message: `must be less than ${num(schema.exclusiveMaximum)}` });
  }

  checkString(schema, value, pointer, out) {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) {
      out.push({ pointer, message: schema.minLength === 1 ? 'must not be empty' : `must be at least ${num(schema.minLength)} characters` });
      return;
    }
    if (schema.maxLength !== undefined && length > schema.maxLength) {
      out.push({ pointer, message: `must be at most ${num(schema.maxLength)} characters (it has ${num(length)})` });
      return;
    }
    if (schema.pattern) {
      const re = regex(schema.pattern);
      if (re && !re.test(value)) out.push({ pointer, message: patternMessage(schema.pattern) });
    }
  }

  checkArray(schema, value, pointer, out) {
    if (schema.minItems !== undefined && value.length < schema.minItems) out.push({ pointer, message: `needs at least ${num(schema.minItems)}` });
    if (schema.maxItems !== undefined && value.length > schema.maxItems) out.push({ pointer, message: `may hold at most ${num(schema.maxItems)} (it has ${num(value.length)})` });
    if (schema.items) value.forEach((item, i) => this.check(schema.items, item, `${pointer}/${i}`, out));
  }

  checkObject(schema, value, pointer, out) {
    const props = schema.properties || {};
    for (const key of schema.required || []) {
      if (value[key] === undefined) out.push({ pointer: `${pointer}/${escape(key)}`, message: 'is required' });
    }
    for (const [key, member] of Object.entries(value)) {
      const at = `${pointer}/${escape(key)}`;
      if (schema.propertyNames && !this.passes(schema.propertyNames, key)) {
        out.push({ pointer: at, message: `“${key}” cannot be used as a name here` });
        continue;
      }
      if (Object.prototype.hasOwnProperty.call(props, key)) {
        const sub = this.resolve(props[key]);
        if (sub?.readOnly) continue;
        this.check(props[key], member, at, out);
      } else if (schema.additionalProperties === false) {
        out.push({ pointer: at, message: 'is not a known field' });
      } else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        this.check(schema.additionalProperties, member, at, out);
      }
    }
  }
}

function escape(key) { return String(key).replace(/~/g, '~0').replace(/\//g, '~1'); }

/** One problem a pointer (the first found). */
function dedupe(problems) {
  const seen = new Set();
  return problems.filter((p) => (seen.has(p.pointer) ? false : (seen.add(p.pointer), true)));
}

/**
 * Problems of `first` followed by those of `more` whose field `first` does not already name
 * (the same field, or one inside it).
 */
export function mergeProblems(first, ...more) {
  const out = [...first];
  for (const list of more) {
    for (const p of list) {
      const taken = out.some((q) => q.pointer === p.pointer
        || (q.pointer && p.pointer.startsWith(`${q.pointer}/`)) || (p.pointer && q.pointer.startsWith(`${p.pointer}/`)));
      if (!taken) out.push(p);
    }
  }
  return out;
}

let loaded = null;
let loading = null;

/**
 * Loads the server's contract once (GET /api/openapi.json) and keeps it; a failure leaves the
 * editor without local checks (the server still checks everything). `fetcher` is for tests.
 */
export function loadContract(fetcher = () => fetch('/api/openapi.json', { headers: { Accept: 'application/json' } }).then((r) => (r.ok ? r.json() : null))) {
  loading ??= Promise.resolve().then(fetcher).then((doc) => {
    loaded = doc ? new Contract(doc) : null;
    if (!loaded) loading = null;
    return loaded;
  }).catch(() => { loading = null; return null; });
  return loading;
}

/** The contract once loaded (null before, or when it could not be read). */
export function contract() { return loaded; }

/** Problems of `value` against the schema `name`, or none when the contract is not loaded. */
export function checkAgainst(name, value) {
  return loaded ? loaded.validate(name, value) : [];
}
