// Who else is in the app, in words and colours: pure functions (node --test reads them) used by
// together.js to draw avatars, the initials on list rows and the outlines on fields.

/** Two letters for a name: "Ann Editor" → "AE", "ann" → "AN", "token ci bot" → "CB" (a token's
 *  own name, not the word token). */
export function initials(name) {
  const words = String(name || '?').replace(/^token\s+/i, '').split(/[\s._@-]+/).filter(Boolean);
  if (!words.length) return '?';
  const letters = words.length > 1 ? words[0][0] + words[words.length - 1][0] : words[0].slice(0, 2);
  return letters.toUpperCase();
}

/** A hue from 0 to 359 for `who` (the same person always gets the same colour). */
export function hueOf(who) {
  let hash = 2166136261;
  for (const ch of String(who)) {
    hash ^= ch.codePointAt(0);
    hash = Math.imul(hash, 16777619) >>> 0;
  }
  return hash % 360;
}

/** A background dark enough for white initials (contrast ≥ 4.5:1 at every hue). */
export function colorOf(who) { return `hsl(${hueOf(who)} 70% 32%)`; }

/**
 * Where an address of the editor is, for presence: '/screens/abc?focus=…' → 'screens/abc',
 * '/publish' → 'publish', '/screens' → 'screens'. The unsaved "new" family is just 'families'.
 */
export function placeOf(rest) {
  const path = String(rest || '/screens').split('?')[0].replace(/^\/+|\/+$/g, '');
  const [area = 'screens', id] = path.split('/');
  if (!id || id === 'new') return area || 'screens';
  return `${area}/${decodeURIComponent(id)}`;
}

const NOUN = { screens: 'screen', families: 'family', layouts: 'layout' };
const AREA = {
  screens: 'the screens', families: 'the families', layouts: 'the layouts', publish: 'Publish', releases: 'Releases', webhooks: 'Webhooks',
  members: 'Members', tokens: 'Tokens', settings: 'Settings', activity: 'Activity',
};

/** A place in words: 'screens/abc' → 'screen “Home”' (`nameOf(area, id)` gives the name). */
export function placeText(where, nameOf = () => null) {
  const [area, ...rest] = String(where || '').split('/');
  const id = rest.join('/');
  if (id && NOUN[area]) return `${NOUN[area]} “${nameOf(area, id) || id}”`;
  return AREA[area] || area || 'the app';
}

/** A pointer's field in words, short: '/ui_components/2/data/source' → 'component 3, data source'. */
export function fieldText(pointer) {
  if (!pointer) return '';
  const parts = String(pointer).split('/').slice(1);
  const words = [];
  for (let i = 0; i < parts.length; i += 1) {
    const p = parts[i];
    if (p === 'ui_components' && /^\d+$/.test(parts[i + 1] || '')) { words.push(`component ${Number(parts[i + 1]) + 1}`); i += 1; continue; }
    if (/^\d+$/.test(p)) { words.push(String(Number(p) + 1)); continue; }
    words.push(p.replace(/_/g, ' '));
  }
  return words.join(', ').replace(/, (\d+)(?=,|$)/g, ' $1');
}

/** The others: everyone but `me`, the same person once (their latest entry). */
export function others(people, me) {
  const seen = new Map();
  for (const p of people || []) if (p && p.who && p.who !== me) seen.set(p.who, p);
  return [...seen.values()];
}

/** The people at `where` (an open screen, family or layout). */
export function peopleAt(people, where) { return (people || []).filter((p) => p.where === where); }

/**
 * Where a field pointer shows, most precise first: the field, then the component that holds it
 * ('/ui_components/2/data/source' → ['/ui_components/2/data/source', '/ui_components/2']; nested
 * components give each holder, innermost first).
 */
export function pointerTargets(pointer) {
  if (!pointer) return [];
  const out = [pointer];
  const parts = pointer.split('/');
  for (let i = parts.length - 1; i > 1; i -= 1) {
    if (parts[i - 1] === 'ui_components' && /^\d+$/.test(parts[i])) {
      const holder = parts.slice(0, i + 1).join('/');
      if (!out.includes(holder)) out.push(holder);
    }
  }
  return out;
}

const KINDS = { screens: 'screen', families: 'family', layouts: 'layout' };

/** True when a change event is about the resource of `where` ('screens/abc' and {kind: 'screen', resource_id: 'abc'}). */
export function concerns(change, where) {
  const [area, ...rest] = String(where || '').split('/');
  return Boolean(change && KINDS[area] === change.kind && String(change.resource_id) === rest.join('/'));
}

/** The list (state key) a change event touches: 'screens', 'families', 'layouts', or null. */
export function listOf(change) {
  return { screen: 'screens', family: 'families', layout: 'layouts' }[change?.kind] || null;
}

/**
 * Whether an editor holding revision `held` should act on a change: not for its own save (the
 * revision it holds already) nor an older one.
 */
export function isNewer(change, held) {
  if (!Number.isInteger(change?.revision) || !Number.isInteger(held)) return true;
  return change.revision > held;
}
