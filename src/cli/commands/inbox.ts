/**
 * `inbox`: the questions waiting for the caller across agents, as the gateway's approvals inbox
 * lists them (GET /inbox/api/questions, authenticated with the same credentials as A2A calls).
 */
import type { WaitingForPage, WaitingQuestionRow } from '../../tasks/index.js';
import { withoutTrailingSlashes } from '../../protocol/base-url.js';
import type { Command } from '../command.js';
import { CliError, ExitCode } from '../errors.js';
import { gatewayEndpoint, getFromGateway } from '../gateway-http.js';
import { commandHint, relative, shellWord } from '../format.js';
import type { Io } from '../io.js';
import { renderTable } from '../table.js';

type InboxCommand = Extract<Command, { kind: 'inbox' }>;

export async function runInbox(command: InboxCommand, io: Io): Promise<ExitCode> {
  const page = await fetchQuestions(command);
  if (command.json) {
    io.out(JSON.stringify(page));
    return ExitCode.Ok;
  }
  const root = withoutTrailingSlashes(command.gateway.url);
  if (page.questions.length === 0) {
    io.out(`Nothing waits for you${command.agent ? ` at ${command.agent}` : ''}. (The web inbox: ${root}/inbox/)`);
    return ExitCode.Ok;
  }
  const now = io.now();
  io.out(
    renderTable(
      ['TASK', 'AGENT', 'QUESTION', 'ASKED BY', 'ASKED', 'DEADLINE'],
      page.questions.map((row) => [
        row.taskId,
        row.agent,
        questionText(row),
        row.askedBy ?? '',
        relative(row.question.askedAt, now),
        row.question.deadline ? relative(row.question.deadline, now) : '',
      ]),
      { ...(io.columns !== undefined && { maxWidth: io.columns }) },
    ),
  );
  io.out('');
  if (page.more) io.out('More questions wait than one page holds: narrow the list with --agent.');
  const first = page.questions[0]!;
  const reply = commandHint(`tasks reply ${shellWord(first.taskId)} <answer>`, {
    agent: first.agent,
    gatewayUrl: command.gateway.url,
  });
  io.out(`Answer:  ${reply}    or in the browser: ${root}/inbox/`);
  return ExitCode.Ok;
}

/** The question as a row shows it; an LLM tool approval by its tool and reason. */
function questionText(row: WaitingQuestionRow): string {
  const { tool, reason } = (row.question.details ?? {}) as { tool?: unknown; reason?: unknown };
  if (typeof tool === 'string') return `${tool}: ${typeof reason === 'string' ? reason : row.question.prompt}`;
  return row.question.prompt;
}

async function fetchQuestions(command: InboxCommand): Promise<WaitingForPage> {
  const url = gatewayEndpoint(command.gateway, '/inbox/api/questions');
  url.searchParams.set('order', command.sort);
  if (command.agent) url.searchParams.set('agent', command.agent);
  const response = await getFromGateway(command.gateway, url);
  if (response.status === 404) {
    throw new CliError(`The gateway at ${command.gateway.url} serves no inbox (an older version?)`, ExitCode.Remote);
  }
  if (!response.ok) throw new CliError(`The gateway answered HTTP ${response.status}`, ExitCode.Remote);
  return (await response.json()) as WaitingForPage;
}
