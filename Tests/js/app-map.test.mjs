// The map of an app's screens (Public/js/app-map.js): which screen opens which, home, the screens
// nothing reaches, and where each goes on the page. Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildAppMap, screenLinks, linkPairs, layoutAppMap, linkPath, navigationName } from '../../Public/js/app-map.js';

const id = (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const HOME = id(1); const SHOWS = id(2); const SHOW = id(3); const MOVIES = id(4); const ORPHAN = id(5); const LOST = id(6); const SETTINGS = id(7);

function app() {
  return [
    {
      id: HOME, name: 'Home', home: true,
      ui_components: [
        { component_type: 'list', data: { target: SHOWS } },
        { component_type: 'group', ui_components: [{ component_type: 'grid', data: { target: MOVIES.toUpperCase() } }] },
      ],
      navigations: [{ category: 'menu', navigation_type: 'tab_bar_menu', nav_items: [
        { title: 'Home', data: { target: HOME } },
        { title: 'More', type: 'nested_menu', nav_items: [{ title: 'Settings', data: { target: SETTINGS } }] },
      ] }],
      hooks: { preload_plugins: [], postload_plugins: [] },
    },
    { id: SHOWS, name: 'Shows', ui_components: [{ component_type: 'grid', data: { target: null } }] },
    { id: SHOW, name: 'Show', connected: true, parent: SHOWS },
    { id: MOVIES, name: 'Movies', navigations: [{ category: 'nav_bar', navigation_type: 'navigation_bar', nav_items: [{ title: 'Back home', data: { target: HOME } }] }] },
    { id: ORPHAN, name: 'Orphan', ui_components: [{ component_type: 'list', data: { target: LOST } }] },
    { id: LOST, name: 'Lost', hooks: { preload_plugins: [{ identifier: 'login_gate', screen_id: ORPHAN }], postload_plugins: [] } },
    { id: SETTINGS, name: 'Settings' },
  ];
}

test('the links of a screen: component targets in groups, nav items nested, hooks; named as on the page', () => {
  const links = screenLinks(app()[0], { typeName: (t) => ({ list: 'List', grid: 'Grid', group: 'Group' })[t] });
  assert.deepEqual(links.map((l) => [l.kind, l.to, l.label]), [
    ['component', SHOWS, 'List 1'],
    ['component', MOVIES, 'Grid 1 in Group 2'],
    ['navigation', HOME, 'Tab bar item “Home”'],
    ['navigation', SETTINGS, 'Tab bar item “More” › “Settings”'],
  ]);
  assert.deepEqual(screenLinks(app()[5]).map((l) => [l.kind, l.to, l.label]), [['hook', ORPHAN, 'Preload hook “login_gate”']]);
  assert.deepEqual(screenLinks({ id: HOME }), [], 'a screen with nothing');
  assert.deepEqual(screenLinks({ id: HOME, ui_components: [null, 'x', { data: null }], navigations: [{ nav_items: [{}] }], hooks: null }), []);
});

test('navigations are called as the editor calls them', () => {
  assert.equal(navigationName({ category: 'nav_bar', navigation_type: 'navigation_bar' }), 'Nav bar');
  assert.equal(navigationName({ category: 'menu', navigation_type: 'tab_bar_menu' }), 'Tab bar');
  assert.equal(navigationName({ category: 'menu', navigation_type: 'side_menu' }), 'Menu');
});

test('the graph: home, distances, a connected screen opened from its parent, and the screens nothing reaches', () => {
  const map = buildAppMap(app());
  assert.equal(map.home, HOME);
  const node = (x) => map.nodes.find((n) => n.id === x);
  assert.equal(node(HOME).home, true);
  assert.equal(node(HOME).layer, 0);
  assert.equal(node(SHOWS).layer, 1);
  assert.equal(node(MOVIES).layer, 1, 'an upper-case target is the same screen');
  assert.equal(node(SETTINGS).layer, 1);
  assert.equal(node(SHOW).layer, 2, 'the connected screen one tap beyond its parent');
  assert.ok(map.links.some((l) => l.kind === 'connected' && l.from === SHOWS && l.to === SHOW));
  assert.deepEqual(map.unreached.sort(), [ORPHAN, LOST].sort());
  assert.equal(node(ORPHAN).flag, 'unreached', 'opened, but only by a screen nothing reaches');
  assert.equal(node(LOST).flag, 'unreached');
  assert.equal(node(SHOWS).flag, '');
  assert.equal(node(HOME).openedBy, 1, 'Movies opens home (its own tab does not count)');
  assert.equal(node(HOME).opens, 4);
});

test('a screen no other screen links to says "nothing opens"; a self link does not count', () => {
  const map = buildAppMap([
    { id: HOME, name: 'Home', home: true },
    { id: ORPHAN, name: 'Orphan', ui_components: [{ component_type: 'list', data: { target: ORPHAN } }] },
  ]);
  assert.equal(map.nodes[1].flag, 'nothing');
  assert.equal(map.nodes[1].layer, 0);
  assert.deepEqual(map.unreached, [ORPHAN]);
});

test('no home flag: the first screen starts; no screens: an empty map; a link to a missing screen is set apart', () => {
  const map = buildAppMap([{ id: SHOWS, name: 'A', ui_components: [{ component_type: 'list', data: { target: LOST } }] }, { id: MOVIES, name: 'B' }]);
  assert.equal(map.home, SHOWS);
  assert.deepEqual(map.missing.map((l) => l.to), [LOST]);
  assert.equal(map.links.length, 0);
  assert.deepEqual(buildAppMap([]), { nodes: [], links: [], home: null, unreached: [], missing: [] });
  assert.deepEqual(buildAppMap(null).nodes, []);
});

test('links between the same two screens are drawn once, with every way named', () => {
  const pairs = linkPairs([
    { from: HOME, to: SHOWS, kind: 'component', label: 'List 1' },
    { from: HOME, to: SHOWS, kind: 'navigation', label: 'Tab bar item “Shows”' },
    { from: HOME, to: SHOWS, kind: 'component', label: 'Grid 2' },
    { from: SHOWS, to: HOME, kind: 'navigation', label: 'Nav bar item “Home”' },
  ]);
  assert.equal(pairs.length, 2);
  assert.deepEqual(pairs[0].kinds, ['component', 'navigation']);
  assert.deepEqual(pairs[0].labels, ['List 1', 'Tab bar item “Shows”', 'Grid 2']);
});

test('the layout: one column per distance, home first, unreached screens in a band below, nothing overlaps', () => {
  const map = buildAppMap(app());
  const size = { nodeWidth: 200, nodeHeight: 60, gapX: 80, gapY: 20 };
  const { positions, width, height, bandTop } = layoutAppMap(map, size);
  assert.equal(positions.size, 7);
  const p = (x) => positions.get(x);
  assert.equal(p(HOME).column, 0);
  assert.ok(p(SHOWS).x > p(HOME).x && p(SHOW).x > p(SHOWS).x);
  assert.equal(p(SHOWS).x, p(MOVIES).x);
  assert.ok(bandTop > Math.max(...[HOME, SHOWS, SHOW, MOVIES, SETTINGS].map((x) => p(x).y + 60)), 'the band below every reached screen');
  assert.ok(p(ORPHAN).y > bandTop && p(LOST).y > bandTop);
  assert.ok(p(LOST).x > p(ORPHAN).x, 'laid out from where they start too');
  const boxes = [...positions.values()];
  for (const a of boxes) {
    assert.ok(a.x >= 0 && a.y >= 0 && a.x + 200 <= width && a.y + 60 <= height, 'inside the drawing');
    for (const b of boxes) {
      if (a === b) continue;
      assert.ok(a.x + 200 <= b.x || b.x + 200 <= a.x || a.y + 60 <= b.y || b.y + 60 <= a.y, 'no two screens overlap');
    }
  }
  // The same data, the same drawing.
  assert.deepEqual([...layoutAppMap(buildAppMap(app()), size).positions], [...positions]);
});

test('a column is ordered by where the screens that open them are (fewer crossings)', () => {
  const A = id(11); const B = id(12); const A1 = id(13); const B1 = id(14);
  const screens = [
    { id: HOME, name: 'Home', home: true, ui_components: [{ component_type: 'list', data: { target: A } }, { component_type: 'list', data: { target: B } }] },
    { id: B1, name: 'B1' }, { id: A1, name: 'A1' },
    { id: A, name: 'A', ui_components: [{ component_type: 'list', data: { target: A1 } }] },
    { id: B, name: 'B', ui_components: [{ component_type: 'list', data: { target: B1 } }] },
  ];
  const { positions } = layoutAppMap(buildAppMap(screens));
  assert.ok(positions.get(A).y < positions.get(B).y);
  assert.ok(positions.get(A1).y < positions.get(B1).y, 'A1 beside A, B1 beside B, though listed the other way');
});

test('lines: forward from edge to edge, within a column around the side, back through the gaps', () => {
  const o = { nodeWidth: 100, nodeHeight: 40, gapX: 60, lane: 10 };
  const a = { x: 0, y: 100, column: 0, band: 'reached' };
  const b = { x: 160, y: 100, column: 1, band: 'reached' };
  const c = { x: 160, y: 200, column: 1, band: 'reached' };
  const d = { x: 320, y: 150, column: 2, band: 'reached' };
  assert.match(linkPath(a, b, o), /^M100,120 C[\d.]+,120 [\d.]+,120 160,120$/);
  const side = linkPath(b, c, o);
  assert.ok(side.startsWith('M260,') && side.endsWith(',212'), side);
  // Back one column: from the left edge to the right edge, a little lower than the line forward.
  assert.equal(linkPath(b, a, o), 'M160,130 C130,130 130,130 100,130');
  // Back two: out into the gap, up the lane above every screen, down beside the target.
  const far = linkPath(d, a, o);
  assert.ok(far.startsWith('M320,180 L') && far.endsWith('L100,130'), far);
  const numbers = far.match(/-?[\d.]+/g).map(Number);
  const ys = numbers.filter((_, i) => i % 2 === 1);
  assert.equal(Math.min(...ys), 10, 'along the lane');
  const points = ys.map((y, i) => [numbers[i * 2], y]);
  const inGap = ([x]) => (x >= 100 && x <= 160) || (x >= 260 && x <= 320);
  assert.ok(points.filter(([, y]) => y > 10).every(inGap), `below the lane only in the gaps: ${points}`);
  assert.notEqual(linkPath(d, a, { ...o, offset: 1 }), far, 'another line of the lane is moved');
  assert.equal(linkPath(a, a, o), '');
});
