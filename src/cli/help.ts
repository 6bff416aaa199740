/** Help texts: commander renders them from the program in spec.ts. */
import { UsageError } from './errors.js';
import { commandId, everyCommand, program } from './spec.js';

/** The help for `a2a-temporal help TOPIC` / `COMMAND --help`; no topic: the program's. */
export function helpFor(topic = ''): string {
  let text = '';
  const cli = program(
    (chunk) => (text += chunk),
    () => {},
    {},
  );
  const command = everyCommand(cli).find((cmd) => commandId(cmd) === topic);
  if (!command) throw new UsageError(`No help for "${topic}". Try: a2a-temporal --help`);
  command.outputHelp();
  return text.trimEnd();
}
