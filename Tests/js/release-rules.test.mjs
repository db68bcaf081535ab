// Releases without the DOM (Public/js/release-rules.js). Run: node --test Tests/js/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  versionProblem, channelNameProblem, parseVersion, leadingVersion, compareVersions, rulesToRows, rowsToRules,
  plainRuleProblem, ruleProblems, ruleWho, resolveRules, versionBelow, exampleUrls, ruleWarnings, plainWarning,
  localToIso, toLocalInput, sortSchedules, channelUrl, storeUrl, targetText,
} from '../../Public/js/release-rules.js';

test('app versions are checked as the server checks them', () => {
  for (const ok of ['5', '5.2', '6.0.1', '1.2.3.4', '123456.0', '0']) assert.equal(versionProblem(ok), '', ok);
  for (const bad of ['', '5.', '.5', '5..2', '1.2.3.4.5', '1234567', 'v5', '5.2-beta', ' 5.2', '5,2', null]) {
    assert.match(versionProblem(bad), /like 5\.2/, String(bad));
  }
  assert.deepEqual(parseVersion('10.0.3'), [10, 0, 3]);
  assert.equal(parseVersion('x'), null);
});

test('versions compare part by part, missing parts 0', () => {
  assert.equal(compareVersions([5, 2], [5, 2, 0]), 0);
  assert.equal(compareVersions([5, 10], [5, 9]), 1);
  assert.equal(compareVersions([5, 1, 9], [5, 2]), -1);
  assert.deepEqual(leadingVersion('6.0.1-beta'), [6, 0, 1]);
  assert.deepEqual(leadingVersion('7.2 (431)'), [7, 2]);
  assert.equal(leadingVersion('beta'), null);
});

test('channel names follow the server', () => {
  assert.equal(channelNameProblem('staging'), '');
  assert.equal(channelNameProblem('qa_2-b'), '');
  assert.match(channelNameProblem('Staging'), /lowercase letter/);
  assert.match(channelNameProblem('2qa'), /lowercase letter/);
  assert.match(channelNameProblem('qa team'), /only lowercase/);
  assert.match(channelNameProblem(`a${'b'.repeat(32)}`), /32/);
});

test('rules go to the form and back unchanged', () => {
  const rules = [
    { store: 'google_play', from_version: null, below_version: '5.2', version: 1 },
    { store: null, from_version: '6.0', below_version: null, channel: 'staging' },
  ];
  const rows = rulesToRows(rules);
  assert.deepEqual(rows, [
    { store: 'google_play', from: '', below: '5.2', target: 'version:1' },
    { store: '', from: '6.0', below: '', target: 'channel:staging' },
  ]);
  assert.deepEqual(rowsToRules(rows), rules);
  assert.deepEqual(rowsToRules([{ store: '', from: ' 5 ', below: '', target: '' }]), [{ store: null, from_version: '5', below_version: null }]);
});

test('problems are put at the field in plain words', () => {
  assert.deepEqual(plainRuleProblem({ pointer: '/rules/1/below_version', message: 'must be above from_version (5): no app version would match' }),
    { pointer: '/rules/1/below_version', message: 'Below version must be above From version (5): no app version would match' });
  assert.deepEqual(plainRuleProblem({ pointer: '/rules/0/channel', message: 'this app has no channel qa: make it first' }),
    { pointer: '/rules/0/target', message: 'This app has no channel qa: make it first' });
  assert.equal(plainRuleProblem({ pointer: '/rules/2', message: 'needs a channel or a version to send its apps to' }).message,
    'Rule 3 needs a channel or a version to send its apps to');
  assert.deepEqual(plainRuleProblem({ pointer: '/rules', message: 'holds at most 100 rules' }), { pointer: '/rules', message: 'holds at most 100 rules' });
  assert.equal(plainRuleProblem({ pointer: '/rules/0/version', message: 'a rule sends apps to a channel or to a version, not both' }).message,
    'A rule sends apps to a channel or to a version, not both');
});

test('the editor finds what it can before the server', () => {
  assert.deepEqual(ruleProblems([
    { store: '', from: '5.2', below: '5.2', target: 'channel:staging' },
    { store: '', from: 'x', below: '', target: '' },
    { store: 'google_play', from: '', below: '5.2', target: 'version:1' },
  ]), [
    { pointer: '/rules/0/below_version', message: 'Below version must be above From version (5.2): no app version would match' },
    { pointer: '/rules/1/from_version', message: 'From version must be a version like 5.2 or 6.0.1 (up to four whole numbers)' },
    { pointer: '/rules/1/target', message: 'Sends apps to: choose a channel or a version' },
  ]);
});

test('the first rule that matches wins; no match is production', () => {
  const rules = [
    { store: 'google_play', from_version: null, below_version: '5.2', version: 1 },
    { store: null, from_version: '6.0', below_version: null, channel: 'staging' },
  ];
  assert.deepEqual(resolveRules(rules, 'google_play', '5.1'), { rule: 0, channel: null, version: 1 });
  assert.deepEqual(resolveRules(rules, 'google_play', '5.2'), { rule: null, channel: 'production', version: null });
  assert.deepEqual(resolveRules(rules, 'apple_store', '6.0.1-beta'), { rule: 1, channel: 'staging', version: null });
  assert.deepEqual(resolveRules(rules, 'apple_store', '5.1'), { rule: null, channel: 'production', version: null });
  // A version that cannot be read matches only rules without a range.
  assert.deepEqual(resolveRules([{ store: 'apple_store', channel: 'qa' }], 'apple_store', 'beta'), { rule: 0, channel: 'qa', version: null });
  assert.equal(resolveRules(rules, 'google_play', 'beta').rule, null);
});

test('example URLs name an app of each rule and say what it gets', () => {
  assert.deepEqual(versionBelow([5, 2]), [5, 1]);
  assert.deepEqual(versionBelow([5, 0]), [4, 9]);
  assert.deepEqual(versionBelow([6]), [5, 9]);
  assert.deepEqual(versionBelow([5, 1, 0]), [5, 0, 9]);
  assert.equal(versionBelow([0, 0]), null);
  const rules = [
    { store: 'google_play', from_version: null, below_version: '5.2', version: 1 },
    { store: null, from_version: '6.0', below_version: null, channel: 'staging' },
    { store: 'google_play', from_version: '5.0', below_version: '5.1', channel: 'qa' },
  ];
  const examples = exampleUrls(rules, { origin: 'http://x', slug: 'demo' });
  assert.equal(examples.length, 4);
  assert.deepEqual(examples[0], {
    index: 0, store: 'google_play', appVersion: '5.1', url: 'http://x/rivers/demo/google_play/5.1/rivers.json',
    gets: { rule: 0, channel: null, version: 1 }, who: 'Google Play apps below 5.2',
  });
  assert.equal(examples[1].url, 'http://x/rivers/demo/apple_store/6.0/rivers.json');
  assert.equal(examples[1].gets.channel, 'staging');
  assert.equal(examples[2].gets.rule, 0, 'rule 1 takes the apps of rule 3');
  assert.deepEqual(examples[3], {
    index: null, store: 'apple_store', appVersion: '1.0', url: 'http://x/rivers/demo/apple_store/1.0/rivers.json',
    gets: { rule: null, channel: 'production', version: null }, who: 'An app no rule names',
  });
  assert.equal(exampleUrls([], { origin: 'http://x', slug: 'demo' }).length, 1);
  assert.equal(exampleUrls([{ store: null, below_version: '0', channel: 'qa' }], { origin: '', slug: 'd' })[0].url, null);
});

test('URLs of channels and stores', () => {
  assert.equal(channelUrl('http://x', 'demo', 'production'), 'http://x/rivers/demo/rivers.json');
  assert.equal(channelUrl('http://x', 'demo', 'qa'), 'http://x/rivers/demo/channels/qa/rivers.json');
  assert.equal(storeUrl('http://x', 'demo', 'apple_store', '6.0'), 'http://x/rivers/demo/apple_store/6.0/rivers.json');
});

test('overlaps are warned of as the server does', () => {
  const rules = [
    { store: 'google_play', below_version: '5.2', version: 1 },
    { store: null, from_version: '5', channel: 'staging' },
    { store: 'google_play', from_version: '5.1', below_version: '5.2', channel: 'production' },
    { store: 'apple_store', from_version: '1', below_version: '2', channel: 'qa' },
  ];
  assert.deepEqual(ruleWarnings(rules), [
    { pointer: '/rules/1', message: 'Overlaps rule 1 (Google Play apps below 5.2): the apps both name get rule 1’s target.' },
    { pointer: '/rules/2', message: 'Never applies: rule 1 (Google Play apps below 5.2) comes first and takes every app it names.' },
  ]);
  assert.deepEqual(ruleWarnings([{ store: 'apple_store', channel: 'a' }, { store: 'google_play', channel: 'b' }]), []);
  assert.equal(plainWarning("overlaps rule 1 (google_play apps below 5.2): the apps both name get rule 1's target"),
    "Overlaps rule 1 (Google Play apps below 5.2): the apps both name get rule 1's target");
});

test('words for rules', () => {
  assert.equal(ruleWho({ store: null }), 'Apps of any store');
  assert.equal(ruleWho({ store: 'apple_store', from_version: '6.0', below_version: '7' }), 'Apple App Store apps from 6.0 below 7');
  assert.equal(targetText({ channel: 'qa' }), 'channel qa');
  assert.equal(targetText({ version: 3 }), 'version 3 (pinned)');
});

test('a local date and time becomes ISO with its offset', () => {
  assert.equal(localToIso('2026-12-01T09:30', () => 60), '2026-12-01T09:30:00+01:00');
  assert.equal(localToIso('2026-12-01T09:30', () => -330), '2026-12-01T09:30:00-05:30');
  assert.equal(localToIso('2026-12-01T09:30:15', () => 0), '2026-12-01T09:30:15+00:00');
  assert.equal(localToIso(''), null);
  assert.equal(localToIso('tomorrow'), null);
  // With the zone of this machine, the instant is the one the local fields name.
  const iso = localToIso('2026-07-01T12:00');
  assert.equal(new Date(iso).getTime(), new Date(2026, 6, 1, 12, 0).getTime());
  assert.equal(toLocalInput(new Date(2026, 0, 2, 3, 4)), '2026-01-02T03:04');
});

test('schedules: pending first, soonest first, then the rest newest first', () => {
  const items = [
    { id: 'a', state: 'fired', at: '2026-01-01T00:00:00Z' },
    { id: 'b', state: 'pending', at: '2026-03-01T00:00:00Z' },
    { id: 'c', state: 'cancelled', at: '2026-02-01T00:00:00Z' },
    { id: 'd', state: 'pending', at: '2026-02-15T00:00:00Z' },
  ];
  assert.deepEqual(sortSchedules(items).map((s) => s.id), ['d', 'b', 'c', 'a']);
});
