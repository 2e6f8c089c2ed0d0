// The pure parts of loan_agent.mjs: `node --test` (npm test). The process itself is tested, with
// stub agents recording the headers they receive, by ../real-agent/test_loan_agent.py
// (LOAN_AGENT_CMD="node ../real-agent-js/loan_agent.mjs"; smoke.sh runs it).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { TaskState } from '@a2a-js/sdk';
import { decide, describeFailure, outgoingHeaders, parseApplication, scoreOf, validTraceparent } from './loan_agent.mjs';

const TP = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const DONE = TaskState.TASK_STATE_COMPLETED;

test('a valid traceparent is forwarded unchanged, whatever the case of its name', () => {
  assert.deepEqual(outgoingHeaders({ traceparent: TP }, null), { traceparent: TP });
  assert.deepEqual(outgoingHeaders({ TraceParent: TP }, null), { traceparent: TP });
});

test('none in, none out', () => {
  assert.deepEqual(outgoingHeaders({ 'content-type': 'application/json' }, null), {});
  assert.deepEqual(outgoingHeaders(undefined, null), {});
});

test('invalid traceparents are dropped', () => {
  for (const bad of [
    '',
    'garbage',
    TP.toUpperCase(),
    'ff' + TP.slice(2),
    '00-00000000000000000000000000000000-b7ad6b7169203331-01',
    '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01',
    TP + '-extra',
    TP.slice(0, -1),
    [TP, TP], // a repeated header
  ]) {
    assert.deepEqual(outgoingHeaders({ traceparent: bad }, null), {}, String(bad));
  }
  assert.equal(validTraceparent('01' + TP.slice(2) + '-more'), true);
});

test('the caller header only when set', () => {
  assert.deepEqual(outgoingHeaders({ traceparent: TP }, 'loan-desk'), {
    traceparent: TP,
    'X-A2A-Sim-Caller': 'loan-desk',
  });
  assert.deepEqual(outgoingHeaders({}, ''), {});
});

const withData = (value) => ({ parts: [{ content: { $case: 'data', value } }] });

test('an application, and what is wrong with a bad one', () => {
  assert.deepEqual(parseApplication(withData({ applicant: ' Grace Hopper ', amount: 20000 })), {
    applicant: 'Grace Hopper',
    amount: 20000,
  });
  assert.match(parseApplication(undefined), /data part/);
  assert.match(parseApplication(withData({ amount: 1 })), /applicant/);
  assert.match(parseApplication(withData({ applicant: 'A', amount: 0 })), /amount/);
  assert.match(parseApplication(withData({ applicant: 'A', amount: '9' })), /amount/);
});

test('the decision', () => {
  const app = { applicant: 'Grace Hopper', amount: 20000 };
  const ok = { state: DONE, data: [{ verified: true }], text: 'verified' };
  assert.equal(decide(app, ok, 650).decision, 'approved');
  assert.equal(decide(app, ok, 649.5).decision, 'declined');
  assert.deepEqual(decide(app, ok, 712), {
    decision: 'approved',
    score: 712,
    text: 'Approved: Grace Hopper, 20000 (credit score 712)',
  });
  for (const kyc of [
    { state: TaskState.TASK_STATE_FAILED, data: [], text: 'Identity not verified' },
    { state: DONE, data: [{ verified: false }], text: 'watch list' },
    { state: TaskState.TASK_STATE_INPUT_REQUIRED, data: [], text: 'which passport?' },
    { state: null, data: [], text: 'a message, not a task' },
  ]) {
    const d = decide(app, kyc, null);
    assert.equal(d.decision, 'declined');
    assert.equal(d.score, null);
    assert.match(d.text, /identity check failed/);
  }
});

test('the score is read from the data', () => {
  assert.equal(scoreOf({ state: DONE, data: [{ x: 1 }, { score: 712 }] }), 712);
  assert.equal(scoreOf({ state: DONE, data: [{ score: '712' }] }), null);
  assert.equal(scoreOf({ state: TaskState.TASK_STATE_FAILED, data: [{ score: 712 }] }), null);
});

test('a failed call is described without ports, ids or bodies', () => {
  const timeout = Object.assign(new Error('t'), { name: 'TimeoutError' });
  assert.equal(describeFailure('kyc', timeout, 2.5, 'send'), 'kyc gave no answer within 2.5 s');
  assert.equal(describeFailure('kyc', new Error('x'), 10, 'card'), "kyc's agent card could not be read");
  assert.equal(describeFailure('kyc', new TypeError('fetch failed'), 10, 'send'), 'kyc could not be reached');
  const html = new Error('HTTP error for SendMessage! Status: 503 Service Unavailable. Response: <html>');
  assert.equal(describeFailure('kyc', html, 10, 'send'), 'kyc answered with an error: HTTP 503');
  assert.equal(describeFailure('kyc', new Error('no caller'), 10, 'send'), 'kyc answered with an error: no caller');
  assert.equal(describeFailure('kyc', new Error('x'.repeat(300)), 10, 'send').length, 'kyc answered with an error: '.length + 203);
});
