// Lengths as a family writes them (Public/js/lengths.js): a number is scalable, {"fixed": n} is n
// points on every device. Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFixed, lengthNumber, makeLength, readLength, formatLength } from '../../Public/js/lengths.js';

test('fixed is {"fixed": …}, whatever is inside', () => {
  assert.equal(isFixed({ fixed: 8 }), true);
  assert.equal(isFixed({ fixed: 'x', other: 1 }), true);
  assert.equal(isFixed({ fixed: undefined }), true);
  for (const not of [8, '8', null, undefined, [8], {}, { fix: 8 }]) assert.equal(isFixed(not), false, JSON.stringify(not));
});

test('the number of a length, scalable or fixed; null when there is none', () => {
  assert.equal(lengthNumber(12), 12);
  assert.equal(lengthNumber({ fixed: 16 }), 16);
  assert.equal(lengthNumber(0), 0);
  assert.equal(lengthNumber(-3), -3);
  for (const none of ['12', null, undefined, NaN, Infinity, { fixed: '16' }, { fixed: null }, []]) assert.equal(lengthNumber(none), null, String(none));
});

test('a length written back: fixed or scalable; nothing without a number', () => {
  assert.equal(makeLength(12, false), 12);
  assert.deepEqual(makeLength(12, true), { fixed: 12 });
  assert.deepEqual(makeLength(0, true), { fixed: 0 });
  assert.equal(makeLength(0, false), 0);
  for (const none of [undefined, null, NaN]) {
    assert.equal(makeLength(none, true), undefined);
    assert.equal(makeLength(none, false), undefined);
  }
});

test('read as the server reads it: a finite number, or exactly {"fixed": finite number}', () => {
  assert.deepEqual(readLength(12.5), { value: 12.5, fixed: false });
  assert.deepEqual(readLength({ fixed: 16 }), { value: 16, fixed: true });
  assert.deepEqual(readLength(-1), { value: -1, fixed: false }, 'bounds are the caller\'s');
  assert.deepEqual(readLength({ fixed: 16, extra: 1 }), { problem: 'must be a number or {"fixed": number}' });
  assert.deepEqual(readLength({ fixed: '16' }), { problem: 'must be a number' });
  assert.deepEqual(readLength({ fixed: Infinity }), { problem: 'must be a number' });
  for (const bad of ['12', null, undefined, NaN, -Infinity, [], {}, true]) assert.deepEqual(readLength(bad), { problem: 'must be a number' }, String(bad));
});

test('shown: two decimals at most, "(fixed)" after a fixed one, a dash without a number', () => {
  assert.equal(formatLength(12), '12');
  assert.equal(formatLength(12.3456), '12.35');
  assert.equal(formatLength(0.1 + 0.2), '0.3');
  assert.equal(formatLength({ fixed: 8 }), '8 (fixed)');
  assert.equal(formatLength({ fixed: 7.5 }), '7.5 (fixed)');
  assert.equal(formatLength('x'), '–');
  assert.equal(formatLength({ fixed: 'x' }), '–');
  assert.equal(formatLength(undefined), '–');
});
