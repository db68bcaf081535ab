// Validation errors at the fields they name (Public/js/field-errors.js): the pure parts, a pointer
// in words, ids replaced by names, and the element a pointer lands on (its longest prefix). The
// drawing is the browser suite's. Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unescapePointer, withNames, findTarget } from '../../Public/js/field-errors.js';
import { state } from '../../Public/js/state.js';

test('a pointer in words: list items by kind and number from 1, escapes undone', () => {
  assert.equal(unescapePointer('/ui_components/0/data/source'), 'component 1 › data › source');
  assert.equal(unescapePointer('/cell_styles/2/content/children/0/max_lines'), 'cell style 3 › content › child 1 › max lines');
  assert.equal(unescapePointer('/navigations/1/nav_items/10/target'), 'navigation 2 › item 11 › target');
  assert.equal(unescapePointer('/errors/0'), 'error 1');
  assert.equal(unescapePointer('/extra/~entry/3'), 'extra › entry 4');
  assert.equal(unescapePointer('/styles/a~1b/c~0d'), 'styles › a/b › c~d');
  assert.equal(unescapePointer('/x/~01'), 'x › ~1', '~1 undone before ~0 (RFC 6901)');
  assert.equal(unescapePointer('/ui_components/first'), 'ui components › first', 'a list name without a number is a member');
  assert.equal(unescapePointer('/ui_components'), 'ui components');
  assert.equal(unescapePointer('/cell_styles/0'), 'cell style 1');
  assert.equal(unescapePointer('/general/title'), 'general › title');
  assert.equal(unescapePointer(''), '');
  assert.equal(unescapePointer('/'), '');
  assert.equal(unescapePointer('relative/path'), 'relative › path');
});

test('ids in the server\'s words become names: screens, then layouts, else "another item"', () => {
  const screen = '0f8fad5b-d9cb-469f-a165-70867728950e';
  const layout = '7c9e6679-7425-40de-944c-e07fc1f90ae7';
  const unknown = '16fd2706-8baf-433b-82eb-8c7fada847da';
  state.screens = [{ id: screen, name: 'Home' }];
  state.layouts = [{ id: layout, name: 'Tabs' }];
  assert.equal(withNames(`parent ${screen} would make a loop`), 'parent “Home” would make a loop');
  assert.equal(withNames(`${layout.toUpperCase()} is used`), '“Tabs” is used', 'upper case ids too');
  assert.equal(withNames(`links to ${unknown} and ${screen}`), 'links to another item and “Home”');
  assert.equal(withNames('no id here'), 'no id here');
  assert.equal(withNames(`x${screen}y`), `x${screen}y`, 'only whole ids');
  assert.equal(withNames(null), '');
  assert.equal(withNames(42), '42');
});

/** A root with elements carrying data-pointer, as querySelectorAll finds them (document order). */
function rootWith(...pointers) {
  const elements = pointers.map((pointer) => ({ name: pointer || '(root)', dataset: { pointer } }));
  return {
    elements,
    querySelectorAll(selector) {
      assert.equal(selector, '[data-pointer]');
      return elements;
    },
  };
}

test('an error lands on the element with the longest pointer that is a prefix of it, member by member', () => {
  const root = rootWith('', '/name', '/ui_components/1', '/ui_components/1/data', '/ui_components/10');
  const at = (pointer) => {
    const found = findTarget(root, pointer);
    return found && [found.el.name, found.rest];
  };
  assert.deepEqual(at('/name'), ['/name', '']);
  assert.deepEqual(at('/ui_components/1/data/source'), ['/ui_components/1/data', '/source']);
  assert.deepEqual(at('/ui_components/1/rules/item_limit'), ['/ui_components/1', '/rules/item_limit']);
  assert.deepEqual(at('/ui_components/10/data'), ['/ui_components/10', '/data']);
  assert.deepEqual(at('/ui_components/12/data'), ['(root)', '/ui_components/12/data'], 'not /ui_components/1: whole members only');
  assert.deepEqual(at('/names'), ['(root)', '/names']);
  assert.deepEqual(at(''), ['(root)', '']);
  assert.deepEqual(at(undefined), ['(root)', '']);
});

test('without an element for the whole, an error no element claims finds nothing; the first of equals wins', () => {
  const root = rootWith('/a', '/a', '/b/c');
  assert.equal(findTarget(root, '/b'), null);
  assert.equal(findTarget(root, '/z/y'), null);
  assert.equal(findTarget(root, '/a/x').el, root.elements[0]);
});

test('pointerLabel: a pointer in the form’s words, never the API’s', async () => {
  const { pointerLabel } = await import('../../Public/js/field-errors.js');
  assert.equal(pointerLabel('/ui_components/1/rules/item_limit'), 'Component 2 › Item limit');
  assert.equal(pointerLabel('/interitem_spacing'), 'Item spacing');
  assert.equal(pointerLabel('/reference_size/width'), 'Reference width');
  assert.equal(pointerLabel('/cell_styles/0/height/fixed'), 'Cell style 1 › Height');
  assert.equal(pointerLabel('/navigations/0/nav_items/2/data/target'), 'Navigation 1 › Item 3 › Tapping an item opens');
  assert.equal(pointerLabel('/ui_components/0/data/type'), 'Component 1 › Source type');
  assert.equal(pointerLabel('/ui_components/0/cell_styles/1'), 'Component 1 › Cell style 2');
  assert.equal(pointerLabel(''), '');
});
