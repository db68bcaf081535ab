// A cell style's content tree (Public/js/cell-content.js): new nodes, paths and pointers, walking,
// changing a node's kind, and a node in a few words. Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  KINDS, CONTAINERS, KIND_NAMES, KIND_MEMBERS, COMMON_MEMBERS, newNode, isContainer, nodeAt, nodePointer, walk, depthOf, changeKind, describeNode,
} from '../../Public/js/cell-content.js';

const tree = {
  kind: 'stack', axis: 'vertical', children: [
    { kind: 'image', aspect_ratio: '16:9' },
    { kind: 'overlay', children: [{ kind: 'text', role: 'title' }, { kind: 'spacer' }] },
    { kind: 'text', role: 'caption' },
  ],
};

test('every kind has a name and its members; containers are stack and overlay', () => {
  assert.deepEqual(KINDS, ['stack', 'overlay', 'image', 'text', 'spacer']);
  for (const kind of KINDS) {
    assert.ok(KIND_NAMES[kind], kind);
    assert.ok(Array.isArray(KIND_MEMBERS[kind]), kind);
    assert.equal(isContainer({ kind }), KIND_MEMBERS[kind].includes('children'), kind);
  }
  assert.deepEqual([...CONTAINERS], ['stack', 'overlay']);
  assert.equal(isContainer(null), false);
});

test('new nodes are valid at once, with only members of their kind', () => {
  assert.deepEqual(newNode('stack'), { kind: 'stack', axis: 'vertical', children: [] });
  assert.deepEqual(newNode('overlay'), { kind: 'overlay', children: [] });
  assert.deepEqual(newNode('image'), { kind: 'image', aspect_ratio: '16:9' });
  assert.deepEqual(newNode('text'), { kind: 'text', role: 'title', max_lines: 1 });
  assert.deepEqual(newNode('spacer'), { kind: 'spacer' });
  assert.deepEqual(newNode('anything else'), { kind: 'spacer' });
  for (const kind of KINDS) {
    for (const member of Object.keys(newNode(kind))) assert.ok([...COMMON_MEMBERS, ...KIND_MEMBERS[kind]].includes(member), `${kind}.${member}`);
  }
  assert.notEqual(newNode('stack').children, newNode('stack').children, 'a new list each time');
});

test('nodes by path (child indices from the root), and their JSON pointers', () => {
  assert.equal(nodeAt(tree, []), tree);
  assert.equal(nodeAt(tree, [1, 0]), tree.children[1].children[0]);
  assert.equal(nodeAt(tree, [2]), tree.children[2]);
  assert.equal(nodeAt(tree, [3]), null, 'no such child');
  assert.equal(nodeAt(tree, [0, 0]), null, 'an image has no children');
  assert.equal(nodeAt({ kind: 'image', children: [{ kind: 'text' }] }, [0]), null, 'only containers have children');
  assert.equal(nodeAt(null, []), null);
  assert.equal(nodePointer('/cell_styles/0/content', []), '/cell_styles/0/content');
  assert.equal(nodePointer('/cell_styles/0/content', [1, 0]), '/cell_styles/0/content/children/1/children/0');
});

test('walking: depth first, in the order the server numbers nodes', () => {
  assert.deepEqual(walk(tree).map(({ node, path, depth }) => [node.kind, path.join('.'), depth]), [
    ['stack', '', 0], ['image', '0', 1], ['overlay', '1', 1], ['text', '1.0', 2], ['spacer', '1.1', 2], ['text', '2', 1],
  ]);
  assert.deepEqual(walk(null), []);
  assert.deepEqual(walk({ kind: 'stack', children: [null, 'x', { kind: 'spacer' }] }).map((n) => n.path.join('.')), ['', '2']);
  assert.equal(depthOf(tree), 3);
  assert.equal(depthOf({ kind: 'spacer' }), 1);
  assert.equal(depthOf(null), 0);
});

test('another kind: padding, frame, align and offset stay; a container keeps its children', () => {
  const node = { kind: 'stack', axis: 'horizontal', spacing: 4, padding: 8, frame: { width: 10 }, align: 'center', offset: { x: 1 }, children: [{ kind: 'spacer' }] };
  assert.equal(changeKind(node, 'stack'), node, 'the same kind: the same node');
  const overlay = changeKind(node, 'overlay');
  assert.deepEqual(overlay, { kind: 'overlay', children: node.children, padding: 8, frame: { width: 10 }, align: 'center', offset: { x: 1 } });
  assert.equal(overlay.children, node.children);
  const image = changeKind(node, 'image');
  assert.deepEqual(image, { kind: 'image', aspect_ratio: '16:9', padding: 8, frame: { width: 10 }, align: 'center', offset: { x: 1 } });
  const stack = changeKind({ kind: 'text', role: 'body', padding: 2 }, 'stack');
  assert.deepEqual(stack, { kind: 'stack', axis: 'vertical', children: [], padding: 2 });
  assert.equal(node.kind, 'stack', 'the node itself is left alone');
});

test('a node in a few words', () => {
  assert.equal(describeNode(newNode('stack')), 'Stack · vertical, 0 items');
  assert.equal(describeNode(tree), 'Stack · vertical, 3 items');
  assert.equal(describeNode({ kind: 'stack', children: [{ kind: 'spacer' }] }), 'Stack · no axis, 1 item');
  assert.equal(describeNode(tree.children[1]), 'Overlay · 2 layers');
  assert.equal(describeNode({ kind: 'overlay', children: [{}] }), 'Overlay · 1 layer');
  assert.equal(describeNode({ kind: 'image', aspect_ratio: '16:9', placeholder: 'poster' }), 'Image · 16:9, poster');
  assert.equal(describeNode({ kind: 'image', aspect_ratio: 1.7778 }), 'Image · 16:9, image', 'a number near a common ratio');
  assert.equal(describeNode({ kind: 'image', frame: { height: { fixed: 40 } } }), 'Image · 40 (fixed) high, image');
  assert.equal(describeNode(newNode('text')), 'Text · title, 1 line');
  assert.equal(describeNode({ kind: 'text', max_lines: 2, line_height: 18 }), 'Text · body, 2 lines of 18 pt');
  assert.equal(describeNode({ kind: 'text', max_lines: 3, line_height: { fixed: 17.5 } }), 'Text · body, 3 lines of 17.5 (fixed) pt');
  assert.equal(describeNode({ kind: 'spacer' }), 'Spacer');
  assert.equal(describeNode({ kind: 'spacer', align: 'bottom_trailing' }), 'Spacer · bottom trailing');
  assert.equal(describeNode({ kind: 'marquee' }), 'Unknown kind “marquee”');
  assert.equal(describeNode({}), 'Unknown kind “”');
  assert.equal(describeNode(null), 'Not a node');
  assert.equal(describeNode('text'), 'Not a node');
});
