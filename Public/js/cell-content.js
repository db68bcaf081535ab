// A cell style's `content`: the tree of stacks, overlays, images, texts and spacers that says what
// is inside one cell (docs/cell-content.md). Pure helpers for the designer (views/cell-designer.js):
// what each kind holds, new nodes, finding a node by its path (child indices from the root) and
// its JSON pointer, and a node in a few words. The layout itself is the server's.
import { formatLength, lengthNumber } from './lengths.js';
import { formatRatio } from './family-math.js';

// The bounds, kinds, members and choices below are the server's (RiversCore CellContent.swift),
// checked against the openapi.json it serves by Tests/js/editor-contract.test.mjs.
export const KINDS = ['stack', 'overlay', 'image', 'text', 'spacer'];
export const CONTAINERS = new Set(['stack', 'overlay']);
export const KIND_NAMES = { stack: 'Stack', overlay: 'Overlay', image: 'Image', text: 'Text', spacer: 'Spacer' };

/** The bounds the server keeps on a tree. */
export const CONTENT_LIMITS = { maxNodes: 64, maxDepth: 8, maxLines: 20 };

export const AXES = ['vertical', 'horizontal'];
export const STACK_ALIGNMENTS = ['leading', 'center', 'trailing', 'fill'];
export const DISTRIBUTIONS = ['fill', 'equal', 'leading'];
export const ALIGNS = ['top_leading', 'top', 'top_trailing', 'leading', 'center', 'trailing', 'bottom_leading', 'bottom', 'bottom_trailing'];
export const PLACEHOLDERS = ['image', 'poster', 'avatar', 'logo'];
export const ROLES = ['title', 'subtitle', 'body', 'caption', 'badge', 'label'];
export const SIDES = ['top', 'left', 'bottom', 'right'];
export const FRAME_KEYS = ['width', 'height', 'min_width', 'max_width', 'min_height', 'max_height'];

/** Members every node may have; the others belong to its kind. */
export const COMMON_MEMBERS = ['kind', 'padding', 'frame', 'align', 'offset'];
export const KIND_MEMBERS = {
  stack: ['axis', 'spacing', 'alignment', 'distribution', 'children'],
  overlay: ['children'],
  image: ['aspect_ratio', 'placeholder'],
  text: ['role', 'font_size', 'line_height', 'max_lines'],
  spacer: [],
};

/** A node as it starts when added: valid at once (an image gets 16:9, a text one title line). */
export function newNode(kind) {
  switch (kind) {
    case 'stack': return { kind: 'stack', axis: 'vertical', children: [] };
    case 'overlay': return { kind: 'overlay', children: [] };
    case 'image': return { kind: 'image', aspect_ratio: '16:9' };
    case 'text': return { kind: 'text', role: 'title', max_lines: 1 };
    default: return { kind: 'spacer' };
  }
}

export const isContainer = (node) => Boolean(node) && CONTAINERS.has(node.kind);

/** The node at `path` (child indices from the root), or null. */
export function nodeAt(root, path) {
  let node = root;
  for (const i of path) {
    if (!isContainer(node) || !Array.isArray(node.children) || !node.children[i]) return null;
    node = node.children[i];
  }
  return node || null;
}

/** The JSON pointer of the node at `path` under `base` (like /cell_styles/0/content). */
export function nodePointer(base, path) {
  return `${base}${path.map((i) => `/children/${i}`).join('')}`;
}

/** Every node, depth first (the order the server numbers them): [{node, path, depth}]. */
export function walk(root) {
  const out = [];
  const visit = (node, path) => {
    if (!node || typeof node !== 'object') return;
    out.push({ node, path, depth: path.length });
    if (Array.isArray(node.children)) node.children.forEach((child, i) => visit(child, [...path, i]));
  };
  visit(root, []);
  return out;
}

/** How deep a tree is (a lone root is 1). */
export function depthOf(root) {
  return walk(root).reduce((max, n) => Math.max(max, n.depth + 1), 0);
}

/** The same node as another kind: padding, frame, align and offset stay; a container keeps its children. */
export function changeKind(node, kind) {
  if (node.kind === kind) return node;
  const next = newNode(kind);
  for (const key of ['padding', 'frame', 'align', 'offset']) if (node[key] !== undefined) next[key] = node[key];
  if (CONTAINERS.has(kind) && Array.isArray(node.children)) next.children = node.children;
  return next;
}

const words = (text) => String(text).replace(/_/g, ' ');

/** A node in a few words: "Stack · vertical, 2 items", "Image · 16:9, poster", "Text · title, 1 line". */
export function describeNode(node) {
  if (!node || typeof node !== 'object') return 'Not a node';
  const name = KIND_NAMES[node.kind] || `Unknown kind “${node.kind ?? ''}”`;
  const parts = [];
  if (node.kind === 'stack') {
    parts.push(node.axis || 'no axis');
    const n = Array.isArray(node.children) ? node.children.length : 0;
    parts.push(`${n} item${n === 1 ? '' : 's'}`);
  } else if (node.kind === 'overlay') {
    const n = Array.isArray(node.children) ? node.children.length : 0;
    parts.push(`${n} layer${n === 1 ? '' : 's'}`);
  } else if (node.kind === 'image') {
    if (node.aspect_ratio !== undefined) parts.push(formatRatio(node.aspect_ratio));
    else if (node.frame?.height !== undefined) parts.push(`${formatLength(node.frame.height)} high`);
    parts.push(node.placeholder || 'image');
  } else if (node.kind === 'text') {
    parts.push(node.role || 'body');
    const lines = node.max_lines ?? 1;
    const of = lengthNumber(node.line_height) !== null ? ` of ${formatLength(node.line_height)} pt` : '';
    parts.push(`${lines} line${lines === 1 ? '' : 's'}${of}`);
  }
  if (node.align) parts.push(words(node.align));
  return parts.length ? `${name} · ${parts.join(', ')}` : name;
}
