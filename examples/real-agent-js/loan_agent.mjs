// loan-desk on the official JavaScript SDK (@a2a-js/sdk): the same agent as
// ../real-agent/loan_agent.py, to show that what a2a-sim drives need not be Python.
//
//     node loan_agent.mjs --port PORT [--host 127.0.0.1]
//
// Serves its agent card at /.well-known/agent-card.json (A2A 1.0, JSON-RPC binding at /). A message
// is a loan application: a text and a data part {"applicant": NAME, "amount": NUMBER}. For each one
// it asks the agents at KYC_URL (identity: a task that ends `completed` and whose data does not say
// `verified: false` passes, anything else declines) and CREDIT_URL (the first data part with a
// numeric `score`: from 650 up approved, below declined), and completes its task with one artifact
// `decision`: a text and a data part {"decision": "approved" | "declined", "score": N | null}. An
// agent that cannot be reached or gives no usable answer fails the task with a message naming it.
//
// Optional environment: A2A_SIM_CALLER_HEADER (when set, every outgoing call carries
// `X-A2A-Sim-Caller: <value>`, the header `a2a-sim serve` identifies a caller by today; per-caller
// URLs /as/CALLER/agents/NAME/ make it unnecessary), LOAN_DESK_TIMEOUT_S (the bound on each outgoing
// call, card fetch included; default 10).
//
// Tracing: the W3C `traceparent` of the request that started a task is put, unchanged, on every call
// made for it, read from the request headers the SDK keeps in the server call context.
//
// Deterministic in what it says: message and artifact ids are counted (`loan-N-...`), status updates
// carry no timestamp. The task and context ids are the SDK's own (random UUIDs; @a2a-js/sdk 1.3.0
// has no hook for them). SIGTERM (or Ctrl-C) closes the server, within 5 seconds.

import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import express from 'express';
import { AGENT_CARD_PATH, Role, TaskState } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';

export const AGENT_NAME = 'loan-desk';
export const APPROVE_FROM = 650;
export const CALLER_HEADER = 'X-A2A-Sim-Caller';
const DEFAULT_TIMEOUT_S = 10;
const SHUTDOWN_GRACE_MS = 5000;
const MAX_QUOTED = 200;

// ---- traceparent and the outgoing headers ----------------------------------------------------

// version, 32-hex trace id, 16-hex parent id, 2-hex flags (W3C Trace Context, lowercase)
const TRACEPARENT_RE = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** Whether `value` is a traceparent to propagate: well formed, not version ff, no all-zero ids,
 * nothing after the flags for version 00. */
export function validTraceparent(value) {
  if (typeof value !== 'string' || !value) return false;
  const m = TRACEPARENT_RE.exec(value.trim());
  if (!m) return false;
  const [, version, traceId, parentId, , rest] = m;
  if (version === 'ff' || /^0+$/.test(traceId) || /^0+$/.test(parentId)) return false;
  return !(version === '00' && rest);
}

/** The headers of every call made for a task, from the headers of the request that started it
 * (keys in any case; a repeated header arrives as a list and is not used) and the optional caller. */
export function outgoingHeaders(incoming, caller) {
  const headers = {};
  let parent;
  for (const [k, v] of Object.entries(incoming ?? {})) {
    if (k.toLowerCase() === 'traceparent') parent = v;
  }
  if (validTraceparent(parent)) headers.traceparent = parent.trim();
  if (caller) headers[CALLER_HEADER] = caller;
  return headers;
}

// ---- the application and the decision --------------------------------------------------------

/** 20000 -> "20000", 12.5 -> "12.5" */
export const numberText = (n) => String(n);

const textPart = (text) => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});
const dataPart = (value) => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});
export const dataParts = (parts) =>
  (parts ?? []).filter((p) => p.content?.$case === 'data').map((p) => p.content.value);
export const textOf = (parts) =>
  (parts ?? [])
    .filter((p) => p.content?.$case === 'text' && p.content.value)
    .map((p) => p.content.value)
    .join(' ');

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The application in a message: {applicant, amount}, or a string saying what is wrong. */
export function parseApplication(message) {
  const usage = 'a loan application needs a data part {"applicant": NAME, "amount": NUMBER}';
  for (const data of dataParts(message?.parts)) {
    if (!isObject(data)) continue;
    const { applicant, amount } = data;
    if (typeof applicant !== 'string' || !applicant.trim()) {
      return `${usage}: \`applicant\` must be a non-empty string`;
    }
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) {
      return `${usage}: \`amount\` must be a positive number`;
    }
    return { applicant: applicant.trim(), amount };
  }
  return usage;
}

/** An outcome is {state (a TaskState, or null for a direct message), data: [...], text}. */
export function kycPassed(kyc) {
  if (kyc.state !== TaskState.TASK_STATE_COMPLETED) return false;
  return !kyc.data.some((d) => isObject(d) && d.verified === false);
}

export function scoreOf(credit) {
  if (credit.state !== null && credit.state !== TaskState.TASK_STATE_COMPLETED) return null;
  for (const d of credit.data) {
    if (isObject(d) && typeof d.score === 'number' && Number.isFinite(d.score)) return d.score;
  }
  return null;
}

export function decide(app, kyc, score) {
  const who = `${app.applicant}, ${numberText(app.amount)}`;
  if (!kycPassed(kyc)) {
    const why = kyc.text || 'no verified identity';
    return { decision: 'declined', score: null, text: `Declined: ${who} (identity check failed: ${why})` };
  }
  if (score >= APPROVE_FROM) {
    return { decision: 'approved', score, text: `Approved: ${who} (credit score ${numberText(score)})` };
  }
  return {
    decision: 'declined',
    score,
    text: `Declined: ${who} (credit score ${numberText(score)}, below ${APPROVE_FROM})`,
  };
}

// ---- calling the two agents ------------------------------------------------------------------

/** A call that gave no usable answer; the message is deterministic (no ports, no ids). */
export class CallFailed extends Error {}

export function describeFailure(agent, e, timeoutS, stage) {
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') {
    return `${agent} gave no answer within ${numberText(timeoutS)} s`;
  }
  if (stage === 'card') return `${agent}'s agent card could not be read`;
  if (e instanceof TypeError) return `${agent} could not be reached`; // fetch's network failure
  // an HTTP error status without a protocol error in the body: the SDK quotes the body, we don't
  const status = /^HTTP error for .*? Status: (\d+)/.exec(e?.message ?? '');
  if (status) return `${agent} answered with an error: HTTP ${status[1]}`;
  return `${agent} answered with an error: ${clip(e?.message || e?.name || 'unknown')}`;
}

/** A peer's text in our messages, at most MAX_QUOTED characters. */
const clip = (text) => (text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}...` : text);

/** fetch with the task's headers and the call's deadline on every request. */
function fetchWith(headers, deadline) {
  return (input, init = {}) => {
    const merged = new Headers(init.headers);
    for (const [k, v] of Object.entries(headers)) merged.set(k, v);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    return fetch(input, { ...init, headers: merged, signal });
  };
}

export class Peers {
  constructor(kycUrl, creditUrl, caller, timeoutS) {
    this.urls = { kyc: kycUrl, credit: creditUrl };
    this.caller = caller;
    this.timeoutS = timeoutS;
  }

  /** Resolves the agent's card and sends it `message` (a blocking send), every request carrying
   * the task's headers; bounded by the timeout as a whole. */
  async call(agent, message, incoming) {
    const headers = outgoingHeaders(incoming, this.caller);
    const deadline = AbortSignal.timeout(this.timeoutS * 1000);
    const fetchImpl = fetchWith(headers, deadline);
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
        transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      })
    );
    let stage = 'card';
    try {
      const client = await factory.createFromUrl(this.urls[agent]);
      stage = 'send';
      const request = { tenant: '', message, configuration: undefined, metadata: {} };
      const result = await client.sendMessage(request, { signal: deadline, serviceParameters: headers });
      return outcomeOf(agent, result);
    } catch (e) {
      if (e instanceof CallFailed) throw e;
      console.error(`loan-desk: call to ${agent} failed: ${e?.name}: ${e?.message}`);
      throw new CallFailed(describeFailure(agent, e, this.timeoutS, stage));
    }
  }
}

function outcomeOf(agent, result) {
  if (result && 'status' in result && 'artifacts' in result) {
    const data = [];
    const texts = [];
    for (const a of result.artifacts ?? []) {
      data.push(...dataParts(a.parts));
      texts.push(textOf(a.parts));
    }
    const statusParts = result.status?.message?.parts;
    data.push(...dataParts(statusParts));
    texts.push(textOf(statusParts));
    return { state: result.status?.state ?? null, data, text: texts.filter(Boolean).join(' ') };
  }
  if (result && 'messageId' in result) {
    return { state: null, data: dataParts(result.parts), text: textOf(result.parts) };
  }
  throw new CallFailed(`${agent} answered neither a task nor a message`);
}

function requestMessage(id, text, data) {
  return {
    messageId: id,
    role: Role.ROLE_USER,
    parts: [textPart(text), dataPart(data)],
    taskId: '',
    contextId: '',
    extensions: [],
    metadata: {},
    referenceTaskIds: [],
  };
}

// ---- the executor ----------------------------------------------------------------------------

export class LoanDesk {
  constructor(peers) {
    this.peers = peers;
    this.applications = 0;
  }

  async execute(requestContext, eventBus) {
    const { taskId, contextId } = requestContext;
    const message = requestContext.userMessage;
    const n = ++this.applications;
    let steps = 0;
    const status = (state, text) =>
      eventBus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            timestamp: undefined,
            message: text && {
              messageId: `loan-${n}-status-${++steps}`,
              role: Role.ROLE_AGENT,
              parts: [textPart(text)],
              taskId,
              contextId,
              extensions: [],
              metadata: {},
              referenceTaskIds: [],
            },
          },
          metadata: {},
        })
      );

    eventBus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: undefined, message: undefined },
        artifacts: [],
        history: [message],
        metadata: {},
      })
    );
    try {
      const app = parseApplication(message);
      if (typeof app === 'string') {
        status(TaskState.TASK_STATE_REJECTED, app[0].toUpperCase() + app.slice(1));
        return;
      }
      const headers = requestContext.context?.state?.get('headers') ?? {};
      const amount = numberText(app.amount);
      let kyc;
      let score = null;
      try {
        status(TaskState.TASK_STATE_WORKING, `Checking the identity of ${app.applicant}`);
        kyc = await this.peers.call(
          'kyc',
          requestMessage(`loan-${n}-kyc`, `KYC check: ${app.applicant}`, { applicant: app.applicant }),
          headers
        );
        if (kycPassed(kyc)) {
          status(TaskState.TASK_STATE_WORKING, `Scoring ${app.applicant} for ${amount}`);
          const credit = await this.peers.call(
            'credit',
            requestMessage(`loan-${n}-credit`, `Credit score: ${app.applicant}, ${amount}`, {
              applicant: app.applicant,
              amount: app.amount,
            }),
            headers
          );
          score = scoreOf(credit);
          if (score === null) throw new CallFailed('credit gave no numeric `score` in a completed task');
        }
      } catch (e) {
        if (!(e instanceof CallFailed)) throw e;
        status(TaskState.TASK_STATE_FAILED, `No decision for ${app.applicant}: ${e.message}`);
        return;
      }
      const d = decide(app, kyc, score);
      eventBus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: `loan-${n}-decision`,
            name: 'decision',
            description: '',
            parts: [textPart(d.text), dataPart({ decision: d.decision, score: d.score })],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        })
      );
      status(TaskState.TASK_STATE_COMPLETED, d.text);
    } finally {
      eventBus.finished();
    }
  }

  async cancelTask(taskId, eventBus) {
    eventBus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        status: { state: TaskState.TASK_STATE_CANCELED, timestamp: undefined, message: undefined },
        metadata: {},
      })
    );
    eventBus.finished();
  }
}

// ---- the server ------------------------------------------------------------------------------

export function agentCard(host, port) {
  return {
    name: AGENT_NAME,
    description: 'Decides loan applications on an identity check and a credit score',
    supportedInterfaces: [
      { url: `http://${host}:${port}/`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    ],
    provider: undefined,
    version: '1.0.0',
    documentationUrl: '',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: 'loan-decision',
        name: 'Loan decision',
        description: 'Send {"applicant": NAME, "amount": NUMBER} as a data part',
        tags: ['loans', 'credit', 'kyc'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

function envTimeout() {
  const raw = process.env.LOAN_DESK_TIMEOUT_S ?? '';
  if (!raw) return DEFAULT_TIMEOUT_S;
  const value = Number(raw);
  if (!(value > 0 && value <= 300)) {
    console.error(`loan-desk: LOAN_DESK_TIMEOUT_S=${JSON.stringify(raw)}: give seconds in (0, 300]`);
    process.exit(2);
  }
  return value;
}

function usage(problem) {
  console.error(`loan-desk: ${problem}\nusage: node loan_agent.mjs --port PORT [--host 127.0.0.1]`);
  process.exit(2);
}

function main() {
  let values;
  try {
    ({ values } = parseArgs({
      options: { port: { type: 'string' }, host: { type: 'string', default: '127.0.0.1' } },
    }));
  } catch (e) {
    usage(e.message);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) usage('--port: give a port in 1..65535');
  const missing = ['KYC_URL', 'CREDIT_URL'].filter((n) => !process.env[n]);
  if (missing.length) usage(`set ${missing.join(' and ')} to the base URL of that agent`);

  const peers = new Peers(
    process.env.KYC_URL,
    process.env.CREDIT_URL,
    process.env.A2A_SIM_CALLER_HEADER || null,
    envTimeout()
  );
  const card = agentCard(values.host, port);
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new LoanDesk(peers));
  const app = express();
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use(jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  const server = app.listen(port, values.host, (err) => {
    if (err) {
      console.error(`loan-desk: cannot listen on ${values.host}:${port}: ${err.message}`);
      process.exit(1);
    }
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeIdleConnections();
    setTimeout(() => {
      server.closeAllConnections();
      process.exit(0);
    }, SHUTDOWN_GRACE_MS).unref();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main();
}
