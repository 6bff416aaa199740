/**
 * Hostile requests for the three transports: the reproductions a fuzzing tester found, one case per
 * invalid value of every field, and PRNG-generated combinations (fixed seed: every run sends the
 * same requests). Every case is invalid by construction, so every answer must be a refusal.
 */
import { BinaryWriter } from '@bufbuild/protobuf/wire';

export interface HttpCase {
  transport: 'JSON-RPC' | 'HTTP+JSON';
  name: string;
  method: string;
  /** Below the agent URL; '' is the JSON-RPC endpoint itself. */
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface GrpcCase {
  transport: 'gRPC';
  name: string;
  /** An lf.a2a.v1.A2AService method, e.g. SendMessage. */
  method: string;
  body: Uint8Array;
  streaming: boolean;
  metadata: Record<string, string>;
}

export type Case = HttpCase | GrpcCase;

/** What the cases aim at: the agent every case is sent to and a task waiting for input there. */
export interface Targets {
  agent: string;
  waitingTaskId: string;
}

/** mulberry32: small, fast, and the same sequence for the same seed. */
export function prng(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = ReturnType<typeof prng>;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

// ---------------------------------------------------------------------------------------------
// JSON values, including ones JSON.stringify cannot build (depth beyond its recursion).

/** JSON text spliced into a request as is. */
class RawJson {
  constructor(readonly text: string) {}
}

/** `levels` nested objects around `leaf`, as text: deeper than any recursive serializer manages. */
function nested(levels: number, leaf = '1', key = 'a'): RawJson {
  return new RawJson(`{"${key}":`.repeat(levels) + leaf + '}'.repeat(levels));
}

const nestedArrays = (levels: number) => new RawJson('['.repeat(levels) + ']'.repeat(levels));

/** Serializes with RawJson values spliced in. */
function toJson(value: unknown): string {
  const spliced: string[] = [];
  const text = JSON.stringify(value, (_key, inner: unknown) => {
    if (!(inner instanceof RawJson)) return inner;
    spliced.push(inner.text);
    return `\u0001raw${spliced.length - 1}\u0001`;
  });
  return text.replace(/"\\u0001raw(\d+)\\u0001"/g, (_, index: string) => spliced[Number(index)]!);
}

/** Absent from the request. */
const MISSING = Symbol('missing');
type Value = unknown;

function withField(base: Record<string, unknown>, key: string, value: Value): Record<string, unknown> {
  const { [key]: _replaced, ...rest } = base;
  return value === MISSING ? rest : { ...rest, [key]: value };
}

const LONE_SURROGATES = ['\ud800', 'x\udfffy', '\udbff'];
const NOT_STRINGS: Value[] = [true, 0, 1.5, [], {}, ['x'], { a: 1 }];
/** Values no ID field takes, besides wrong types. */
const BAD_IDS: Value[] = [...LONE_SURROGATES, 'a\u0000b', '\u0000', 'x'.repeat(300), ...NOT_STRINGS];
const DEEP: Value[] = [nested(65), nested(200), nested(4_200), nested(20_000), nestedArrays(5_000)];

/** One invalid value per line: every message field, wrong in every way that matters. */
function messageMutations(): [string, Value][] {
  const field = (key: string, values: Value[]) => values.map((value): [string, Value] => [key, value]);
  return [
    ...field('messageId', [MISSING, '', null, ...BAD_IDS]),
    ...field('role', [MISSING, '', null, 'user', 'ROLE_UNSPECIFIED', 'role_user', 0, 3, -1, true, {}, '\ud800']),
    ...field('parts', [
      MISSING,
      null,
      [],
      {},
      'hello',
      1,
      [null],
      [1],
      ['text'],
      [[]],
      [{}],
      [{ text: 'a' }, null],
      [{ text: 1 }],
      [{ text: {} }],
      [{ text: 'a', raw: 'AA==' }],
      [{ text: 'a', data: {} }],
      [{ raw: true }],
      [{ raw: 1 }],
      [{ raw: {} }],
      [{ raw: [1, 2] }],
      [{ url: 5 }],
      [{ data: null, text: null }],
      [{ text: 'x', metadata: 'm' }],
      [{ text: 'x', metadata: [] }],
      [{ text: 'x', filename: 1 }],
      [{ text: 'x', mediaType: {} }],
      [{ text: 'x', media_type: [] }],
      ...LONE_SURROGATES.map((text) => [{ text }]),
      [{ data: { '\ud800': 1 } }],
      [{ data: ['ok', '\udc00'] }],
      ...DEEP.map((data) => [{ data }]),
      [{ text: 'x', metadata: nested(100) }],
      [{ text: 'x'.repeat(600_000) }],
    ]),
    ...field('contextId', BAD_IDS),
    ...field('context_id', ['\ud800', 'a\u0000b']),
    ...field('taskId', BAD_IDS),
    ...field('metadata', ['m', 1, [], true, { k: '\ud800' }, { '\udfff': 1 }, ...DEEP]),
    ...field('referenceTaskIds', ['x', 1, {}, [1], [null], [{}], ['\ud800'], ['a\u0000'], ['x'.repeat(300)]]),
    ...field('extensions', ['x', 1, [1], [{}]]),
  ];
}

/** Invalid SendMessage params beside the message itself. */
function sendParamsMutations(): [string, Value][] {
  return [
    ['message', MISSING],
    ['message', null],
    ['message', 'hello'],
    ['message', []],
    ['message', 1],
    ['configuration', 'x'],
    ['configuration', []],
    ['configuration', { historyLength: -1 }],
    ['configuration', { historyLength: 'ten' }],
    ['configuration', { historyLength: 1.5 }],
    ['configuration', { history_length: -3 }],
    ['configuration', { returnImmediately: 'yes' }],
    ['configuration', { acceptedOutputModes: 'text/plain' }],
    ['configuration', { acceptedOutputModes: [1] }],
  ];
}

/** Invalid task IDs for GetTask, CancelTask and SubscribeToTask, and IDs of no task. */
const TASK_ID_VALUES: Value[] = [MISSING, '', null, ...BAD_IDS, 'no-such-task', '00000000-0000-4000-8000-000000000000'];

function listMutations(): [string, Value][] {
  const field = (key: string, values: Value[]) => values.map((value): [string, Value] => [key, value]);
  return [
    ...field('pageSize', [0, 101, -1, 1.5, 'ten', true, {}, 1e20]),
    ...field('historyLength', [-1, 'x', 1.5, {}]),
    ...field('includeArtifacts', ['yes', 1, {}]),
    ...field('contextId', BAD_IDS),
    ...field('pageToken', [
      'garbage',
      '!!!',
      'abc.def',
      'Zm9v',
      'e30.AAAAAAAAAAAAAAAAAAAAAA',
      'a.b.c',
      'x'.repeat(5000),
      1,
      {},
    ]),
    ...field('statusTimestampAfter', [
      '99999-01-01',
      '+275760-09-13T00:00:00Z',
      '0000-01-01T00:00:00Z',
      'yesterday',
      '2024-13-45',
      'not a date',
      5,
      {},
      '\ud800',
    ]),
    ...field('status', ['TASK_STATE_BOGUS', 'completed', 99, -1, 1.5, true, {}]),
  ];
}

// ---------------------------------------------------------------------------------------------
// JSON-RPC

const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupSetter__',
  'prototype',
];

function rpc(
  name: string,
  method: unknown,
  params: unknown,
  headers: Record<string, string> = V1,
  id: unknown = 1,
): HttpCase {
  return {
    transport: 'JSON-RPC',
    name,
    method: 'POST',
    path: '',
    headers,
    body: toJson({ jsonrpc: '2.0', id, method, ...(params !== MISSING && { params }) }),
  };
}

function rawRpc(name: string, body: string | Uint8Array, headers: Record<string, string> = V1): HttpCase {
  return { transport: 'JSON-RPC', name, method: 'POST', path: '', headers, body };
}

function baseMessage(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { messageId: 'hostile', role: 'ROLE_USER', parts: [{ text: 'hello' }], ...extra };
}

/** A message with one field wrong, as a new task and as a reply to the waiting task. */
function messageVariants(targets: Targets): { name: string; message: Record<string, unknown> }[] {
  return messageMutations().flatMap(([key, value]) => [
    { name: `message.${key}=${describe(value)}`, message: withField(baseMessage(), key, value) },
    {
      name: `reply message.${key}=${describe(value)}`,
      message: withField(baseMessage({ taskId: targets.waitingTaskId }), key, value),
    },
  ]);
}

export function jsonRpcCases(targets: Targets, random: Random): HttpCase[] {
  const cases: HttpCase[] = [];
  // The reproductions, by name.
  for (const name of PROTOTYPE_NAMES) {
    cases.push(
      rpc(`method ${name}`, name, {}),
      rpc(`v0.3 method ${name}`, name, {}, { 'content-type': 'application/json' }),
    );
  }
  cases.push(
    rawRpc(
      'id nested 10,000 levels',
      `{"jsonrpc":"2.0","method":"GetTask","params":{"id":"x"},"id":${nested(10_000).text}}`,
    ),
  );
  cases.push(rpc('metadata nested 4,200 levels', 'SendMessage', { message: baseMessage({ metadata: nested(4_200) }) }));
  cases.push(
    rpc('data part nested 4,200 levels', 'SendMessage', { message: baseMessage({ parts: [{ data: nested(4_200) }] }) }),
  );
  cases.push(rpc('raw: true', 'SendMessage', { message: baseMessage({ parts: [{ raw: true }] }) }));
  cases.push(rpc('lone-surrogate messageId', 'SendMessage', { message: baseMessage({ messageId: '\ud800' }) }));
  cases.push(rpc('bad pageToken', 'ListTasks', { pageToken: 'garbage' }));
  cases.push(rpc('NUL in contextId', 'SendMessage', { message: baseMessage({ contextId: 'a\u0000b' }) }));
  cases.push(rpc('statusTimestampAfter 99999-01-01', 'ListTasks', { statusTimestampAfter: '99999-01-01' }));

  for (const method of ['SendMessage', 'SendStreamingMessage']) {
    for (const { name, message } of messageVariants(targets)) cases.push(rpc(`${method} ${name}`, method, { message }));
    for (const [key, value] of sendParamsMutations()) {
      cases.push(rpc(`${method} ${key}=${describe(value)}`, method, withField({ message: baseMessage() }, key, value)));
    }
  }
  for (const method of ['GetTask', 'CancelTask', 'SubscribeToTask']) {
    for (const id of TASK_ID_VALUES) cases.push(rpc(`${method} id=${describe(id)}`, method, withField({}, 'id', id)));
  }
  for (const historyLength of [-1, 'x', 1.5, {}]) {
    cases.push(
      rpc(`GetTask historyLength=${describe(historyLength)}`, 'GetTask', { id: targets.waitingTaskId, historyLength }),
    );
  }
  for (const [key, value] of listMutations()) {
    cases.push(rpc(`ListTasks ${key}=${describe(value)}`, 'ListTasks', withField({}, key, value)));
  }
  const push = [
    'CreateTaskPushNotificationConfig',
    'GetTaskPushNotificationConfig',
    'ListTaskPushNotificationConfigs',
    'DeleteTaskPushNotificationConfig',
  ];
  for (const method of push) {
    for (const params of [
      {},
      // Wrong types in every field a push-config method reads, on a task that exists.
      { taskId: targets.waitingTaskId, id: 7, url: 7, pageSize: -1 },
      { taskId: '\ud800' },
      { taskId: nested(3_000) },
    ]) {
      cases.push(rpc(`${method} ${describe(params)}`, method, params));
    }
  }
  cases.push(...envelopeCases());
  cases.push(...legacyCases(targets));

  // Generated: random method names, and valid requests with one to three random invalid fields.
  for (let i = 0; i < 120; i++)
    cases.push(rpc(`random method #${i}`, randomString(random, 1 + Math.floor(random() * 40)), {}));
  const mutations = messageMutations();
  for (let i = 0; i < 150; i++) {
    let message = baseMessage(random() < 0.3 ? { taskId: targets.waitingTaskId } : {});
    for (let n = 0; n <= Math.floor(random() * 3); n++) message = withField(message, ...pick(random, mutations));
    cases.push(rpc(`random message #${i}`, pick(random, ['SendMessage', 'SendStreamingMessage']), { message }, V1, i));
  }
  const lists = listMutations();
  for (let i = 0; i < 60; i++) {
    let params: Record<string, unknown> = { pageSize: 1 + Math.floor(random() * 100) };
    for (let n = 0; n <= Math.floor(random() * 3); n++) params = withField(params, ...pick(random, lists));
    cases.push(rpc(`random ListTasks #${i}`, 'ListTasks', params, V1, `list-${i}`));
  }
  for (let i = 0; i < 60; i++) cases.push(rawRpc(`random body #${i}`, toJson(randomJson(random, 4))));
  return cases;
}

function envelopeCases(): HttpCase[] {
  const getTask = { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } };
  const variants: [string, Value][] = [
    ['jsonrpc', MISSING],
    ['jsonrpc', '1.0'],
    ['jsonrpc', 2],
    ['jsonrpc', null],
    ['method', MISSING],
    ['method', 1],
    ['method', null],
    ['method', []],
    ['method', ''],
    ['method', {}],
    ['method', '\ud800'],
    ['id', {}],
    ['id', []],
    ['id', 1.5],
    ['id', true],
    ['id', nested(100)],
    ['id', nestedArrays(50_000)],
    ['params', 'x'],
    ['params', []],
    ['params', 1],
    ['params', true],
    ['params', nested(5_000)],
  ];
  const cases = variants.map(([key, value]) =>
    rawRpc(`envelope ${key}=${describe(value)}`, toJson(withField(getTask, key, value))),
  );
  const bodies = [
    'true',
    '1',
    '"x"',
    'null',
    '[]',
    '[1,2]',
    '[{}]',
    '{',
    '{"a":',
    '',
    'nul',
    '\u0000',
    '{"jsonrpc":"2.0",}',
  ];
  for (const body of bodies) cases.push(rawRpc(`body ${JSON.stringify(body)}`, body));
  cases.push(rawRpc('body nested arrays 100,000 levels', nestedArrays(100_000).text));
  cases.push(rawRpc('body nested objects 100,000 levels', nested(100_000).text));
  cases.push(rawRpc('invalid UTF-8 bytes', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])));
  cases.push(
    rawRpc(
      'body over 10 MB',
      toJson({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x'.repeat(11_000_000) } }),
    ),
  );
  const body = toJson({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } });
  for (const type of [
    'text/plain',
    'application/xml',
    'multipart/form-data',
    'application/x-www-form-urlencoded',
    'application/json; charset=utf-16',
  ]) {
    cases.push(rawRpc(`content type ${type}`, body, { ...V1, 'content-type': type }));
  }
  cases.push(rawRpc('no content type', body, { 'a2a-version': '1.0' }));
  for (const version of ['99.0', 'abc', '1.0.0.0.0', '\u00e9']) {
    cases.push(rawRpc(`A2A-Version ${version}`, body, { ...V1, 'a2a-version': encodeURIComponent(version) }));
  }
  return cases;
}

/** v0.3 methods (no A2A-Version header) go through the SDK's compatibility layer: garbage there too. */
function legacyCases(targets: Targets): HttpCase[] {
  const v03 = { 'content-type': 'application/json' };
  const message = { kind: 'message', messageId: 'hostile', role: 'user', parts: [{ kind: 'text', text: 'hello' }] };
  const cases: HttpCase[] = [];
  for (const method of ['message/send', 'message/stream']) {
    for (const [key, value] of [
      ['parts', [null]],
      ['parts', [{ kind: 'file', file: { bytes: true } }]],
      ['parts', [{ kind: 'file' }]],
      ['parts', [{ kind: 'file', file: 'x' }]],
      ['parts', [{ kind: 'file', file: null }]],
      ['parts', [{ kind: 'file', file: { uri: 5 } }]],
      ['parts', [{ kind: 'text', text: 5 }]],
      ['parts', [{ kind: 'text', text: 'x', metadata: 'm' }]],
      ['extensions', 5],
      ['referenceTaskIds', 5],
      ['referenceTaskIds', [5]],
      ['parts', [{ kind: 'data', data: nested(4_200) }]],
      ['messageId', '\ud800'],
      ['contextId', 'a\u0000b'],
      ['role', MISSING],
      ['metadata', nested(4_200)],
      ['taskId', 'x'.repeat(300)],
    ] as [string, Value][]) {
      cases.push(
        rpc(`v0.3 ${method} ${key}=${describe(value)}`, method, { message: withField(message, key, value) }, v03),
      );
    }
    cases.push(
      rpc(
        `v0.3 ${method} reply without role`,
        method,
        { message: withField({ ...message, taskId: targets.waitingTaskId }, 'role', MISSING) },
        v03,
      ),
    );
    for (const configuration of ['x', { acceptedOutputModes: 5 }, { pushNotificationConfig: 'x' }]) {
      cases.push(
        rpc(`v0.3 ${method} configuration=${describe(configuration)}`, method, { message, configuration }, v03),
      );
    }
  }
  for (const method of ['tasks/get', 'tasks/cancel', 'tasks/resubscribe']) {
    for (const id of [MISSING, '\ud800', 'a\u0000', 1, {}, 'x'.repeat(300)])
      cases.push(rpc(`v0.3 ${method} id=${describe(id)}`, method, withField({}, 'id', id), v03));
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------
// HTTP+JSON

function rest(
  name: string,
  method: string,
  path: string,
  body?: string | Uint8Array,
  headers: Record<string, string> = V1,
): HttpCase {
  return { transport: 'HTTP+JSON', name, method, path: `/rest${path}`, headers, ...(body !== undefined && { body }) };
}

export function restCases(targets: Targets, random: Random): HttpCase[] {
  const cases: HttpCase[] = [];
  const sends = ['/message:send', '/message:stream', '/t1/message:send', '/t1/message:stream'];
  cases.push(
    rest('body true', 'POST', '/message:send', 'true'),
    rest('tenant body true', 'POST', '/t1/message:send', 'true'),
  );
  cases.push(rest('parts [null]', 'POST', '/message:send', toJson({ message: baseMessage({ parts: [null] }) })));
  cases.push(rest('no role', 'POST', '/message:send', toJson({ message: withField(baseMessage(), 'role', MISSING) })));
  cases.push(rest('task ID %ED%A0%80', 'GET', '/tasks/%ED%A0%80'));
  cases.push(rest('statusTimestampAfter=99999-01-01', 'GET', '/tasks?statusTimestampAfter=99999-01-01'));
  for (const path of sends) {
    for (const body of ['true', '1', '"x"', 'null', '[]', '[{}]', '{', '', '{}', '{"message":null}']) {
      cases.push(rest(`${path} body ${JSON.stringify(body)}`, 'POST', path, body));
    }
    for (const { name, message } of messageVariants(targets))
      cases.push(rest(`${path} ${name}`, 'POST', path, toJson({ message })));
    for (const [key, value] of sendParamsMutations()) {
      cases.push(
        rest(
          `${path} ${key}=${describe(value)}`,
          'POST',
          path,
          toJson(withField({ message: baseMessage() }, key, value)),
        ),
      );
    }
    cases.push(
      rest(`${path} as text/plain`, 'POST', path, toJson({ message: baseMessage() }), {
        ...V1,
        'content-type': 'text/plain',
      }),
    );
    cases.push(rest(`${path} as XML`, 'POST', path, '<message/>', { ...V1, 'content-type': 'application/xml' }));
  }
  cases.push(
    rest(
      'upper-case MESSAGE:SEND without role',
      'POST',
      '/MESSAGE:SEND',
      toJson({ message: withField(baseMessage(), 'role', MISSING) }),
    ),
  );
  const badSegments = [
    '%ED%A0%80',
    '%FF',
    '%E0%80',
    '%',
    '%zz',
    '%C0%AF',
    '%F0%9F',
    '%ED%BF%BF',
    '%00',
    'a%00b',
    'x'.repeat(300),
    'no-such-task',
  ];
  for (const segment of badSegments) {
    for (const tenant of ['', '/t1']) {
      cases.push(rest(`GetTask ${tenant}/${segment}`, 'GET', `${tenant}/tasks/${segment}`));
      cases.push(rest(`CancelTask ${tenant}/${segment}`, 'POST', `${tenant}/tasks/${segment}:cancel`));
      cases.push(rest(`SubscribeToTask ${tenant}/${segment}`, 'GET', `${tenant}/tasks/${segment}:subscribe`));
      cases.push(
        rest(`push configs ${tenant}/${segment}`, 'GET', `${tenant}/tasks/${segment}/pushNotificationConfigs`),
      );
    }
  }
  // Bodies that are JSON but no object; `null` is not among them: it counts as no body (a2a-go sends it).
  for (const [tenant, body] of [
    ['/t1', 'true'],
    ['/t1', '[1]'],
    ['', '"x"'],
    ['/t1', '1'],
  ]) {
    cases.push(rest(`cancel ${tenant} body ${body}`, 'POST', `${tenant}/tasks/${targets.waitingTaskId}:cancel`, body));
    cases.push(rest(`get ${tenant} body ${body}`, 'GET', `${tenant}/tasks/${targets.waitingTaskId}`, body));
  }
  const queries = [
    'pageSize=abc',
    'pageSize=0',
    'pageSize=101',
    'pageSize=-1',
    'pageSize=1.5',
    'historyLength=-1',
    'historyLength=abc',
    'pageToken=garbage',
    'pageToken=abc.def',
    'pageToken=%ED%A0%80',
    'statusTimestampAfter=abc',
    'statusTimestampAfter=0000-01-01',
    'statusTimestampAfter=%2B275760-09-13T00:00:00Z',
    'status=BOGUS',
    'status=99',
    'contextId=%00',
    `contextId=${'x'.repeat(300)}`,
    'pageSize=1&pageSize=2',
    'contextId=a&contextId=b',
    'statusTimestampAfter=2024-01-01&statusTimestampAfter=2025-01-01',
  ];
  for (const query of queries) {
    cases.push(
      rest(`ListTasks ?${query}`, 'GET', `/tasks?${query}`),
      rest(`ListTasks /t1 ?${query}`, 'GET', `/t1/tasks?${query}`),
    );
  }
  for (const query of ['historyLength=-1', 'historyLength=abc'])
    cases.push(rest(`GetTask ?${query}`, 'GET', `/tasks/${targets.waitingTaskId}?${query}`));
  cases.push(
    rest('version 99.0', 'GET', `/tasks/${targets.waitingTaskId}`, undefined, { ...V1, 'a2a-version': '99.0' }),
  );
  cases.push(rest('unknown path', 'GET', '/nothing-here'), rest('unknown path bad encoding', 'GET', '/%ED%A0%80'));
  cases.push(rest('PUT message:send', 'PUT', '/message:send', toJson({ message: baseMessage() })));
  cases.push(
    rest(
      'body over 10 MB',
      'POST',
      '/message:send',
      toJson({ message: baseMessage({ parts: [{ text: 'x'.repeat(11_000_000) }] }) }),
    ),
  );
  cases.push(rest('body nested 100,000 levels', 'POST', '/message:send', nested(100_000).text));

  // Generated: task IDs of random bytes (often not UTF-8) and messages with random invalid fields.
  for (let i = 0; i < 120; i++) {
    const bytes = Array.from({ length: 1 + Math.floor(random() * 12) }, () => Math.floor(random() * 256));
    const segment = bytes.map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
    cases.push(
      rest(
        `random task ID #${i}`,
        pick(random, ['GET', 'POST']),
        `/tasks/${segment}${pick(random, ['', ':cancel', ':subscribe'])}`,
      ),
    );
  }
  const mutations = messageMutations();
  for (let i = 0; i < 120; i++) {
    let message = baseMessage(random() < 0.3 ? { taskId: targets.waitingTaskId } : {});
    for (let n = 0; n <= Math.floor(random() * 3); n++) message = withField(message, ...pick(random, mutations));
    cases.push(rest(`random message #${i}`, 'POST', pick(random, sends), toJson({ message })));
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------
// gRPC: requests encoded by hand, so they can hold what no SDK client would send.

const writer = () => new BinaryWriter();
const str = (field: number, text: string) =>
  writer()
    .uint32((field << 3) | 2)
    .string(text)
    .finish();
const bytes = (field: number, value: Uint8Array) =>
  writer()
    .uint32((field << 3) | 2)
    .bytes(value)
    .finish();
const int = (field: number, value: number) =>
  writer()
    .uint32(field << 3)
    .int32(value)
    .finish();
const int64 = (field: number, value: number) =>
  writer()
    .uint32(field << 3)
    .int64(value)
    .finish();
const concat = (...parts: Uint8Array[]) => Buffer.concat(parts);

const varint = (value: number) => writer().uint32(value).finish();

/**
 * A google.protobuf.Value nesting `levels` Structs {a: ...} around `true`. Each level's header
 * (Value.struct_value, Struct.fields entry, key "a", entry value) needs the length of what it wraps,
 * so the headers are computed from the inside out and the bytes joined once.
 */
function deepValue(levels: number): Uint8Array {
  const leaf = concat(int(4, 1));
  const headers: Uint8Array[] = [];
  let length = leaf.length;
  for (let i = 0; i < levels; i++) {
    const entry = 3 + 1 + varint(length).length + length;
    const struct = 1 + varint(entry).length + entry;
    headers.push(
      concat(
        Uint8Array.of(0x2a),
        varint(struct),
        Uint8Array.of(0x0a),
        varint(entry),
        Uint8Array.of(0x0a, 0x01, 0x61, 0x12),
        varint(length),
      ),
    );
    length = 1 + varint(struct).length + struct;
  }
  return concat(...headers.reverse(), leaf);
}

/** A Struct with one field `a` holding `value`. */
const struct = (value: Uint8Array) => bytes(1, concat(str(1, 'a'), bytes(2, value)));

interface ProtoMessage {
  messageId?: string | Uint8Array;
  contextId?: string | Uint8Array;
  taskId?: string;
  role?: number;
  parts?: Uint8Array[];
  metadata?: Uint8Array;
  referenceTaskIds?: string[];
}

const text = (value: string) => str(1, value);

function protoMessage(message: ProtoMessage): Uint8Array {
  const stringField = (field: number, value: string | Uint8Array | undefined) =>
    value === undefined ? [] : [typeof value === 'string' ? str(field, value) : bytes(field, value)];
  return concat(
    ...stringField(1, message.messageId),
    ...stringField(2, message.contextId),
    ...stringField(3, message.taskId),
    ...(message.role === undefined ? [] : [int(4, message.role)]),
    ...(message.parts ?? []).map((part) => bytes(5, part)),
    ...(message.metadata ? [bytes(6, message.metadata)] : []),
    ...(message.referenceTaskIds ?? []).map((id) => str(8, id)),
  );
}

function grpcCase(
  name: string,
  method: string,
  body: Uint8Array,
  metadata: Record<string, string> = { 'a2a-version': '1.0' },
): GrpcCase {
  return {
    transport: 'gRPC',
    name,
    method,
    body,
    streaming: method === 'SendStreamingMessage' || method === 'SubscribeToTask',
    metadata,
  };
}

/** gRPC cases the handler-level checks can refuse (the request decodes). */
export function grpcCases(targets: Targets, random: Random): GrpcCase[] {
  const tenant = str(1, targets.agent);
  const ok: ProtoMessage = { messageId: 'hostile', role: 1, parts: [text('hello')] };
  const variants: [string, ProtoMessage][] = [
    ['no role', { ...ok, role: undefined }],
    ['role unspecified', { ...ok, role: 0 }],
    ['role 7', { ...ok, role: 7 }],
    ['role -1', { ...ok, role: -1 }],
    ['no messageId', { ...ok, messageId: undefined }],
    ['no parts', { ...ok, parts: [] }],
    ['empty part', { ...ok, parts: [new Uint8Array()] }],
    ['part metadata nested 65', { ...ok, parts: [concat(text('a'), bytes(5, struct(deepValue(64))))] }],
    ['data nested 100', { ...ok, parts: [bytes(4, deepValue(100))] }],
    ['data nested 1,000', { ...ok, parts: [bytes(4, deepValue(1_000))] }],
    ['metadata nested 65', { ...ok, metadata: struct(deepValue(64)) }],
    ['NUL in contextId', { ...ok, contextId: 'a\u0000b' }],
    ['NUL in messageId', { ...ok, messageId: '\u0000' }],
    ['NUL in referenceTaskIds', { ...ok, referenceTaskIds: ['a\u0000'] }],
    ['long messageId', { ...ok, messageId: 'm'.repeat(300) }],
    ['long contextId', { ...ok, contextId: 'c'.repeat(300) }],
    ['long taskId', { ...ok, taskId: 't'.repeat(5_000) }],
    ['NUL in taskId', { ...ok, taskId: 'a\u0000' }],
    ['unknown taskId', { ...ok, taskId: 'no-such-task' }],
    ['no role, invalid UTF-8 messageId', { ...ok, role: undefined, messageId: Buffer.from([0xed, 0xa0, 0x80]) }],
    ['oversized text', { ...ok, parts: [text('x'.repeat(600_000))] }],
  ];
  const cases: GrpcCase[] = [];
  for (const method of ['SendMessage', 'SendStreamingMessage']) {
    for (const [name, message] of variants) {
      cases.push(grpcCase(`${method} ${name}`, method, concat(tenant, bytes(2, protoMessage(message)))));
      const reply = { ...message, taskId: message.taskId ?? targets.waitingTaskId };
      cases.push(grpcCase(`${method} reply ${name}`, method, concat(tenant, bytes(2, protoMessage(reply)))));
    }
    cases.push(grpcCase(`${method} no message`, method, tenant));
    cases.push(grpcCase(`${method} unknown tenant`, method, concat(str(1, 'nobody'), bytes(2, protoMessage(ok)))));
  }
  for (const method of ['GetTask', 'CancelTask', 'SubscribeToTask']) {
    for (const id of ['', 'a\u0000', 'x'.repeat(300), 'y'.repeat(5_000), 'no-such-task', '\ufffd']) {
      cases.push(grpcCase(`${method} id=${describe(id)}`, method, concat(tenant, str(2, id))));
    }
    cases.push(grpcCase(`${method} invalid UTF-8 id`, method, concat(tenant, bytes(2, Buffer.from([0xff, 0xfe])))));
  }
  cases.push(
    grpcCase('GetTask historyLength -1', 'GetTask', concat(tenant, str(2, targets.waitingTaskId), int(3, -1))),
  );
  const lists: [string, Uint8Array][] = [
    ['pageToken garbage', str(5, 'garbage')],
    ['pageToken forged', str(5, 'e30.AAAAAAAAAAAAAAAAAAAAAA')],
    ['pageSize 101', int(4, 101)],
    ['pageSize -5', int(4, -5)],
    ['historyLength -1', int(6, -1)],
    ['status 99', int(3, 99)],
    ['contextId NUL', str(2, 'a\u0000')],
    ['contextId long', str(2, 'c'.repeat(300))],
    ['statusTimestampAfter year 33658', bytes(7, int64(1, 1e12))],
    ['statusTimestampAfter before year 1', bytes(7, int64(1, -62_200_000_000))],
  ];
  for (const [name, field] of lists) {
    // Each with a bad token too, so that none of them is a valid listing by accident.
    cases.push(grpcCase(`ListTasks ${name}`, 'ListTasks', concat(tenant, field, str(5, 'not-a-token'))));
    cases.push(grpcCase(`ListTasks ${name} alone`, 'ListTasks', concat(tenant, field)));
  }
  for (const method of [
    'CreateTaskPushNotificationConfig',
    'GetTaskPushNotificationConfig',
    'ListTaskPushNotificationConfigs',
    'DeleteTaskPushNotificationConfig',
  ]) {
    cases.push(grpcCase(`${method} empty`, method, tenant));
  }
  cases.push(grpcCase('GetTask version 99.0', 'GetTask', concat(tenant, str(2, 'x')), { 'a2a-version': '99.0' }));
  cases.push(grpcCase('unknown method', 'NoSuchMethod', tenant));

  // Generated: decodable messages with random strings (NUL, replacement characters, any length) in
  // every ID, always with one field no valid request has.
  for (let i = 0; i < 120; i++) {
    const message: ProtoMessage = {
      messageId: randomString(random, Math.floor(random() * 20)),
      contextId: randomString(random, Math.floor(random() * 300)),
      ...(random() < 0.5 && { taskId: random() < 0.5 ? targets.waitingTaskId : randomString(random, 40) }),
      role: pick(random, [0, 1, 2, 3]),
      parts: random() < 0.2 ? [] : [text(randomString(random, 30))],
      ...(random() < 0.3 && { referenceTaskIds: [randomString(random, 10)] }),
    };
    // Nothing invalid yet: a NUL makes the context ID one no task may have.
    if (message.role === 1 || message.role === 2) message.contextId = `${message.contextId as string}\u0000`;
    cases.push(
      grpcCase(
        `random message #${i}`,
        pick(random, ['SendMessage', 'SendStreamingMessage']),
        concat(tenant, bytes(2, protoMessage(message))),
      ),
    );
  }
  for (let i = 0; i < 80; i++) {
    const method = pick(random, ['GetTask', 'CancelTask', 'SubscribeToTask']);
    cases.push(
      grpcCase(
        `random ${method} #${i}`,
        method,
        concat(tenant, str(2, randomString(random, 1 + Math.floor(random() * 200)))),
      ),
    );
  }
  for (let i = 0; i < 60; i++) {
    const token =
      random() < 0.5
        ? randomString(random, 1 + Math.floor(random() * 100))
        : `${randomString(random, 8)}.${randomString(random, 22)}`;
    cases.push(
      grpcCase(
        `random ListTasks #${i}`,
        'ListTasks',
        concat(tenant, int(4, 1 + Math.floor(random() * 100)), str(5, token)),
      ),
    );
  }
  return cases;
}

/**
 * gRPC requests that need checks beyond the request edges: requests the SDK cannot decode (sdk-compat/grpc-decoding.ts),
 * task IDs too long to echo back in a status, a negative configuration.historyLength (request-handler.ts).
 */
export function grpcCasesBeyondTheEdges(targets: Targets, random: Random): GrpcCase[] {
  const tenant = str(1, targets.agent);
  const ok: ProtoMessage = { messageId: 'hostile', role: 1, parts: [text('hello')] };
  const cases = [
    grpcCase('historyLength -1', 'SendMessage', concat(tenant, bytes(2, protoMessage(ok)), bytes(3, int(3, -1)))),
    grpcCase('garbage bytes', 'SendMessage', Buffer.from([0xff, 0xff, 0xff, 0x01, 0x02])),
    grpcCase(
      'metadata nested 2,000',
      'SendMessage',
      concat(tenant, bytes(2, protoMessage({ ...ok, metadata: struct(deepValue(2_000)) }))),
    ),
    grpcCase(
      'metadata nested 4,200',
      'SendMessage',
      concat(tenant, bytes(2, protoMessage({ ...ok, metadata: struct(deepValue(4_200)) }))),
    ),
    grpcCase(
      'data nested 50,000',
      'SendMessage',
      concat(tenant, bytes(2, protoMessage({ ...ok, parts: [bytes(4, deepValue(50_000))] }))),
    ),
    grpcCase('statusTimestampAfter beyond any date', 'ListTasks', concat(tenant, bytes(7, int64(1, 9e15)))),
    grpcCase('GetTask id of 100,000 characters', 'GetTask', concat(tenant, str(2, 'x'.repeat(100_000)))),
    grpcCase('CancelTask id of 100,000 characters', 'CancelTask', concat(tenant, str(2, 'x'.repeat(100_000)))),
  ];
  for (let i = 0; i < 20; i++) {
    const garbage = Buffer.from(
      Array.from({ length: 1 + Math.floor(random() * 64) }, () => Math.floor(random() * 256)),
    );
    cases.push(
      grpcCase(
        `random bytes #${i}`,
        pick(random, ['SendMessage', 'GetTask', 'ListTasks']),
        concat(tenant, Buffer.from([0x12, 0xff]), garbage),
      ),
    );
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------

const ALPHABET = [
  'a',
  'Z',
  '0',
  '-',
  '_',
  '.',
  '/',
  ':',
  ' ',
  '\u0000',
  '\ufffd',
  '\u00e9',
  '\u4e2d',
  '\ud83d\ude00',
  '%',
  '"',
  '\\',
  '\n',
];

/** A string of `length` characters from an alphabet rich in what breaks parsers. */
function randomString(random: Random, length: number): string {
  return Array.from({ length }, () => pick(random, ALPHABET)).join('');
}

function randomJson(random: Random, depth: number): unknown {
  const kind = Math.floor(random() * (depth > 0 ? 7 : 5));
  switch (kind) {
    case 0:
      return null;
    case 1:
      return random() < 0.5;
    case 2:
      return Math.floor(random() * 2e9) - 1e9;
    case 3:
      return randomString(random, Math.floor(random() * 12));
    case 4:
      return pick(random, [...LONE_SURROGATES, '\u0000', 'x'.repeat(1000)]);
    case 5:
      return Array.from({ length: Math.floor(random() * 4) }, () => randomJson(random, depth - 1));
    default:
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 4) }, () => [
          randomString(random, 6),
          randomJson(random, depth - 1),
        ]),
      );
  }
}

/** A short label for a value in a case name. */
function describe(value: Value): string {
  if (value === MISSING) return '(missing)';
  if (value instanceof RawJson) return `(${value.text.length} chars of nested JSON)`;
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
