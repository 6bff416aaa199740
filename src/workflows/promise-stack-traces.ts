/**
 * Turns off the stack trace Temporal's worker captures for every promise workflow code creates
 * (issue 46). Temporal's V8 promise hook (`@temporalio/worker` 1.24, `vm-shared.js`) creates an
 * Error in `init` for each promise and reads its `stack`, which its `Error.prepareStackTrace`
 * formats, mapping every frame through the bundle's source map, only so that the `__stack_trace`
 * query can show where a workflow is blocked; no worker option turns it off. It was 22–35% of the
 * workflow thread's CPU in the bench (bench/README.md, "The SDK's per-promise stack traces"), and is
 * paid again on every replay.
 *
 * Node formats an Error's stack with the `Error.prepareStackTrace` of the realm that made it before
 * the main one's; the hook's Errors are the sandbox's. So this module, preloaded before the sandbox
 * freezes its globals (and evaluated per workflow where the sandbox is not reused), gives the
 * sandbox's Error its own: the hook's Errors get an empty stack, after which the hook keeps nothing
 * (the `__stack_trace` query then lists no promises); every other Error is formatted by Temporal's
 * own, reached in the main realm, as before (workflow failures keep their source-mapped stacks).
 */
import { PROMISE_HOOK_FILE } from '../protocol/temporal-sdk-compat.js';

type PrepareStackTrace = (error: Error, frames: NodeJS.CallSite[]) => unknown;

/**
 * The main realm's Error, whose `prepareStackTrace` is Temporal's (read at each call: the worker
 * installs it once per thread). `URL` is one of the objects the worker injects from the main realm.
 */
const mainRealmError = (URL as unknown as { constructor: FunctionConstructor }).constructor(
  'return Error',
)() as ErrorConstructor & { prepareStackTrace?: PrepareStackTrace };

const prepareStackTrace: PrepareStackTrace = (error, frames) => {
  if (error.message === '' && frames[0]?.getFileName()?.endsWith(PROMISE_HOOK_FILE)) return '';
  const temporals = mainRealmError.prepareStackTrace;
  return temporals
    ? temporals(error, frames)
    : `${String(error)}\n${frames.map((frame) => `    at ${String(frame)}`).join('\n')}`;
};

if (!Object.isFrozen(Error)) Error.prepareStackTrace = prepareStackTrace;
