// What is live: the version apps download now (the newest version; a rollback is a new version
// too), its document, and the draft a publish would send (GET draft.json, the saved screens). The
// screen editor's badge and the Publish page read it; it is fetched again after saves and publishes.
import { api } from './state.js';
import { stableStringify } from './dom.js';
import { documentChanges } from './changes.js';

/**
 * {available, live: version|null, liveDocument, draft, changes, differs}. `available` is false on
 * a server without publishing; `live` is null before the first publish.
 */
export async function loadLive() {
  let page;
  try {
    page = await api.versions(1, 0);
  } catch (error) {
    if (error.isMissingRoute) return { available: false };
    throw error;
  }
  const live = page.items[0] || null;
  const [draft, liveDocument] = await Promise.all([
    api.draftDocument(),
    live ? api.version(live.number).then((v) => v.document) : Promise.resolve([]),
  ]);
  const differs = !live || stableStringify(draft) !== stableStringify(liveDocument);
  return { available: true, live, liveDocument, draft, differs, changes: documentChanges(liveDocument, draft) };
}

/** Who the live version is, in words: "version 5 (a rollback to version 2)". */
export function liveName(live) {
  if (!live) return 'nothing yet';
  return `version ${live.number}${live.rollback_of ? ` (a rollback to version ${live.rollback_of})` : ''}`;
}

/**
 * One screen against the live version: 'unpublished' (nothing is live), 'new' (not in the live
 * version), 'same' or 'changed' (the saved screen differs from what apps get).
 */
export function screenState(status, screenId) {
  if (!status.live) return 'unpublished';
  const find = (doc) => (Array.isArray(doc) ? doc.find((s) => s?.id === screenId) : null);
  const live = find(status.liveDocument);
  if (!live) return 'new';
  return stableStringify(live) === stableStringify(find(status.draft)) ? 'same' : 'changed';
}
