/**
 * LLM agents: a model-and-tool loop that runs as the task's workflow. Every model call and every
 * tool call is an activity (retries, timeouts, cancellation); a tool call that needs a human is a
 * `ctx.ask` with a structured question; a denial goes back to the model as the tool's result. The
 * conversation is rebuilt from the agent journal after continue-as-new, and every model output and
 * tool result is capped so a long session stays within Temporal's payload and history limits.
 * Tools from MCP servers (llm-mcp.ts) are listed once when the task starts and run like the rest.
 */
import { inWorkflowContext, isCancellation, proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import { toJSONSchema, z } from 'zod';
import {
  cap,
  MODEL_ACTIVITY,
  TOOL_ACTIVITY,
  type LlmMessage,
  type LlmToolCall,
  type LlmToolResult,
  type LlmToolSpec,
  type ModelCallInput,
  type ModelCallResult,
  type ModelCallSettings,
  type ToolRunInput,
  type ToolRunResult,
} from '../protocol/llm.js';
import { MCP_CALL_TOOL_ACTIVITY, type McpCallToolInput } from '../protocol/mcp.js';
import type { JsonObject } from '../protocol/wire.js';
import { AgentFailure, defineAgent, RemoteAgentFailed, type AgentContext, type AgentDefinition } from './agent-api.js';
import { agentInternals, laneContext } from './agent-context.js';
import type { ModelStream } from './task-runtime.js';
import { llmActivityOptions } from './llm-activity-options.js';
import { checkBudget, DEFAULT_MAX_STEPS, ModelBudget, type BudgetLimits } from './llm-budget.js';
import { asksAtStepLimit, asksSeveralQuestions } from './task-patches.js';
import { checkMcpServers, mcpTools, type McpServer, type McpTool } from './llm-mcp.js';
import type { AnyLlmTool, RemoteAgentTarget, RemoteAgentToolInput } from './llm-tools.js';
import { uiText } from '../protocol/ui-text.js';

/** Characters of one model answer, and of one tool result, that the conversation keeps. */
const MAX_MODEL_TEXT_CHARS = 32_000;
const MAX_TOOL_OUTPUT_CHARS = 16_000;
const DEFAULT_STREAM_INTERVAL_MS = 250;
const ASK_USER_TOOL = 'ask_user';

/**
 * An LLM agent for {@link defineLlmAgent}: its card (as any agent's), its instructions, model and tools,
 * and the limits of a task's model calls.
 */
export interface LlmAgentDefinition extends Omit<AgentDefinition, 'run'>, BudgetLimits {
  /** The system prompt. */
  instructions: string;
  /**
   * The model: a name at the worker's OpenAI-compatible endpoint (the worker's A2A_MODEL when
   * absent), or `provider:model` for a provider the worker's config names in `modelProviders`
   * (e.g. 'anthropic:claude-sonnet-4-5').
   */
  model?: string;
  /** Temperature, max output tokens, provider options of every model call. */
  modelSettings?: ModelCallSettings;
  /** The tools the model may call, by the name it calls them: {@link defineTool}, {@link defineRemoteAgentTool}. */
  tools?: Record<string, AnyLlmTool>;
  /**
   * MCP servers whose tools become the agent's, named `<server>_<tool>` (e.g. `github_create_issue`):
   * `{ github: { url, bearerTokenEnv: 'GITHUB_TOKEN', approval: { create_issue: 'always' } } }`, or a
   * stdio server the worker starts, `{ command, args, env }`. Listed once per task, when it starts.
   */
  mcp?: Record<string, McpServer>;
  /** The built-in `ask_user` tool, with which the model asks the user a question (input-required). Default true. */
  askUser?: boolean;
  /**
   * Model calls per task before a human is asked whether to go on, as with `maxModelCalls`, which
   * replaces it when set. Default 20.
   */
  maxSteps?: number;
  /** Retries and timeouts of model calls, merged field by field with the defaults (llm-activity-options.ts: 5 minutes each, 3 attempts). */
  modelActivityOptions?: ActivityOptions;
  /** How often streamed text reaches clients, in ms. Default 250. */
  streamIntervalMs?: number;
}

/**
 * An agent whose `run` is the model-and-tool loop: every model call and tool call is an activity, and
 * a call that needs approval waits for a human as `ctx.ask` does (docs/llm-agents.md).
 *
 * @example
 * import { defineLlmAgent, defineTool } from 'a2a-temporal';
 * import { z } from 'zod';
 *
 * export const assistant = defineLlmAgent({
 *   name: 'purchasing-assistant',
 *   description: 'Finds products and orders them; orders over 100 EUR wait for a human.',
 *   skills: [{ id: 'purchase', name: 'Purchasing', description: 'Finds and orders products', tags: ['llm'] }],
 *   instructions: 'You are a purchasing assistant. Find products with lookup_product before you order them.',
 *   maxTokens: 50_000, // then a human says whether to go on
 *   tools: {
 *     lookup_product: defineTool({
 *       description: 'Finds products in the catalog by name',
 *       input: z.object({ query: z.string() }),
 *       activity: 'lookupProduct',
 *     }),
 *   },
 * });
 * @throws TypeError where the worker loads the agents (outside the workflow sandbox): a tool's schema with
 * no JSON Schema, a budget that is not a positive whole number, or MCP server settings it cannot use.
 */
export function defineLlmAgent(definition: LlmAgentDefinition): AgentDefinition {
  const {
    instructions,
    model,
    modelSettings,
    tools = {},
    mcp = {},
    askUser = true,
    maxSteps,
    modelActivityOptions,
    streamIntervalMs,
    maxTokens,
    maxModelCalls,
    ...card
  } = definition;
  const budget: BudgetLimits = {
    ...(maxTokens !== undefined && { maxTokens }),
    ...(maxModelCalls !== undefined && { maxModelCalls }),
  };
  // Where the config loads the agents (Node, not the sandbox), a tool whose schema has no JSON
  // Schema (a date, a transform), or a budget that is no count, stops the worker from starting
  // instead of failing its every task.
  if (!inWorkflowContext()) {
    toolSpecsOf(tools, askUser);
    checkBudget(card.name, { ...budget, ...(maxSteps !== undefined && { maxSteps }) });
    checkMcpServers(card.name, mcp);
  }
  return defineAgent({
    ...card,
    // The worker checks at its start that every tool's activity is registered (agents-plugin.ts).
    llm: {
      ...(model && { model }),
      toolActivities: Object.fromEntries(
        Object.entries(tools)
          .filter(([, tool]) => !tool.remoteAgent)
          .map(([name, tool]) => [name, tool.activity]),
      ),
    },
    run: (ctx) =>
      new LlmLoop(ctx, {
        system: instructions,
        ...(model && { model }),
        ...(modelSettings && { modelSettings }),
        tools,
        toolSpecs: toolSpecsOf(tools, askUser),
        ...(Object.keys(mcp).length > 0 && { mcp }),
        askUser,
        maxSteps: maxSteps ?? DEFAULT_MAX_STEPS,
        modelOptions: llmActivityOptions('model', modelActivityOptions),
        streamIntervalMs: streamIntervalMs ?? DEFAULT_STREAM_INTERVAL_MS,
        budget,
      }).run(),
  });
}

/**
 * What the model is told of the tools. Built when a run starts, not when the agent is defined:
 * Temporal's sandbox evaluates the agents' modules again for every workflow, and JSON Schema
 * conversion there would cost every task on the worker, LLM agent or not.
 */
function toolSpecsOf(tools: Record<string, AnyLlmTool>, askUser: boolean): LlmToolSpec[] {
  const specs: LlmToolSpec[] = Object.entries(tools).map(([name, tool]) => ({
    name,
    description: tool.description,
    parameters: toJSONSchema(tool.input) as Record<string, unknown>,
  }));
  if (askUser) {
    specs.push({
      name: ASK_USER_TOOL,
      description:
        'Ask the user a question and wait for the answer. Use it when you need information only the user has.',
      parameters: toJSONSchema(z.object({ question: z.string() })) as Record<string, unknown>,
    });
  }
  return specs;
}

interface LoopSettings {
  system: string;
  model?: string;
  modelSettings?: ModelCallSettings;
  tools: Record<string, AnyLlmTool>;
  toolSpecs: LlmToolSpec[];
  mcp?: Record<string, McpServer>;
  askUser: boolean;
  maxSteps: number;
  modelOptions: ActivityOptions;
  streamIntervalMs: number;
  budget: BudgetLimits;
}

type ModelActivity = (input: ModelCallInput) => Promise<ModelCallResult>;
type ToolActivity = (input: ToolRunInput) => Promise<ToolRunResult>;
type McpCallActivity = (input: McpCallToolInput) => Promise<ToolRunResult>;

class LlmLoop {
  private readonly messages: LlmMessage[];
  private readonly budget: ModelBudget;
  /** The project's tools, and the MCP servers' once listed. */
  private tools: Record<string, AnyLlmTool | McpTool>;
  private toolSpecs: LlmToolSpec[];

  constructor(
    private readonly ctx: AgentContext,
    private readonly settings: LoopSettings,
  ) {
    this.messages = [{ role: 'user', text: ctx.message.text || JSON.stringify(ctx.message.data ?? '') }];
    // Tasks of earlier releases fail at maxSteps instead (run()).
    this.budget = new ModelBudget(settings.budget, asksAtStepLimit() ? settings.maxSteps : undefined);
    this.tools = settings.tools;
    this.toolSpecs = settings.toolSpecs;
  }

  async run(): Promise<string> {
    if (this.settings.mcp) await this.addMcpTools(this.settings.mcp);
    for (let step = 1; ; step++) {
      if (step > this.settings.maxSteps && !asksAtStepLimit()) {
        throw new AgentFailure(`The model did not finish within ${this.settings.maxSteps} steps`);
      }
      await this.withinBudget();
      const answer = await this.callModel(step);
      this.budget.spend(answer.usage);
      this.messages.push({
        role: 'assistant',
        ...(answer.text && { text: answer.text }),
        ...(answer.toolCalls.length > 0 && { toolCalls: answer.toolCalls }),
      });
      if (answer.toolCalls.length === 0) return answer.text;
      this.messages.push({ role: 'tool', results: await this.runTools(answer.toolCalls) });
    }
  }

  /**
   * The tool calls of one answer, all at once (release 10): each in a lane of the journal, so the
   * free ones run side by side while the approvals are asked together, each approved call runs as
   * its answer comes, and the model's next call waits for them all. Before, one after another.
   */
  private async runTools(calls: LlmToolCall[]): Promise<LlmToolResult[]> {
    if (asksSeveralQuestions()) {
      const { journal } = agentInternals(this.ctx);
      return journal.parallel('tools', calls, (call, lane) => this.runTool(call, laneContext(this.ctx, lane)));
    }
    const results: LlmToolResult[] = [];
    for (const call of calls) results.push(await this.runTool(call, this.ctx));
    return results;
  }

  /** One model call; its text streams into an artifact named `answer` while it is generated. */
  private async callModel(step: number): Promise<ModelCallResult> {
    const { runtime, journal } = agentInternals(this.ctx);
    const streamId = `model-${step}`;
    const stream: ModelStream = {
      artifactId: `${this.ctx.taskId}-${streamId}`,
      name: 'answer',
      received: 0,
      maxChars: MAX_MODEL_TEXT_CHARS,
    };
    const call = proxyActivities<Record<string, ModelActivity>>(this.settings.modelOptions)[MODEL_ACTIVITY]!;
    let result: ModelCallResult;
    try {
      result = await journal.step(`model`, async () => {
        runtime.modelStreams.set(streamId, stream);
        try {
          const answer = await call.executeWithOptions({ summary: `model call ${step}` }, [
            {
              ...(this.settings.model && { model: this.settings.model }),
              system: this.settings.system,
              messages: this.messages,
              tools: this.toolSpecs,
              maxTextChars: MAX_MODEL_TEXT_CHARS,
              stream: { streamId, intervalMs: this.settings.streamIntervalMs },
              ...(this.settings.modelSettings && { settings: this.settings.modelSettings }),
            },
          ]);
          // Here, not after the step: a run after continue-as-new gets the recorded result again,
          // and must not count its tokens twice.
          if (answer.usage) runtime.record.addModelUsage({ model: answer.model ?? '', ...answer.usage });
          return answer;
        } finally {
          runtime.modelStreams.delete(streamId);
        }
      });
    } catch (error) {
      if (isCancellation(error)) throw error;
      throw new AgentFailure(`The model call failed: ${failureMessage(error)}`);
    }
    // A retry that streamed nothing (a fast answer) replaces what a failed attempt streamed, even
    // with no text of its own. Results without `attempt` (older histories) keep their old ending.
    const restart = result.attempt !== undefined && result.attempt !== stream.attempt && stream.received > 0;
    if (restart) stream.received = 0;
    // The rest of the text, and the end of the artifact: the chunks joined are the whole answer.
    const rest = result.text.slice(stream.received);
    if (result.text || restart) {
      this.ctx.artifact({
        artifactId: stream.artifactId,
        name: stream.name,
        text: rest,
        append: stream.received > 0,
        lastChunk: true,
      });
    }
    return result;
  }

  /** One tool call, its approval and effects recorded in `ctx`'s journal. */
  private async runTool(call: LlmToolCall, ctx: AgentContext): Promise<LlmToolResult> {
    const fail = (output: string): LlmToolResult => ({ id: call.id, name: call.name, output, isError: true });
    let args: unknown;
    try {
      args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
    } catch (error) {
      return fail(
        `The arguments are not valid JSON (${(error as Error).message}). Call the tool again with valid JSON.`,
      );
    }
    if (call.name === ASK_USER_TOOL && this.settings.askUser) return this.askUser(ctx, call, args);
    const tool = this.tools[call.name];
    if (!tool) return fail(`There is no tool named "${call.name}".`);
    const parsed = tool.input.safeParse(args);
    if (!parsed.success) return fail(`Invalid arguments: ${issuesOf(parsed.error)}`);

    let input = parsed.data;
    const reason = approvalReason(tool, input);
    if (reason !== undefined) {
      const decision = await this.askApproval(ctx, call.name, tool, input, reason);
      if (decision.kind === 'deny') {
        return fail(
          `A human denied this call${decision.reason ? `: ${decision.reason}` : ''}. Do not repeat it unchanged.`,
        );
      }
      input = decision.input;
    }
    return this.execute(ctx, call, tool, input);
  }

  private async execute(
    ctx: AgentContext,
    call: LlmToolCall,
    tool: AnyLlmTool | McpTool,
    input: unknown,
  ): Promise<LlmToolResult> {
    if (tool.remoteAgent) return this.delegate(ctx, call, tool.remoteAgent, input as RemoteAgentToolInput);
    const options = llmActivityOptions('tool', tool.activityOptions);
    const { journal } = agentInternals(ctx);
    const maxAttempts = options.retry?.maximumAttempts ?? 0;
    const outcome = await journal.step(`tool:${call.name}`, () => {
      if ('mcp' in tool) {
        const run = proxyActivities<Record<string, McpCallActivity>>(options)[MCP_CALL_TOOL_ACTIVITY]!;
        return run.executeWithOptions({ summary: `tool ${uiText(call.name)}` }, [
          {
            ...tool.mcp,
            arguments: input as Record<string, unknown>,
            maxOutputChars: MAX_TOOL_OUTPUT_CHARS,
            maxAttempts,
          },
        ]);
      }
      const run = proxyActivities<Record<string, ToolActivity>>(options)[TOOL_ACTIVITY]!;
      return run.executeWithOptions({ summary: `tool ${uiText(call.name)}` }, [
        { activity: tool.activity, input, maxOutputChars: MAX_TOOL_OUTPUT_CHARS, maxAttempts },
      ]);
    });
    return { id: call.id, name: call.name, output: outcome.output, ...(outcome.isError && { isError: true }) };
  }

  /** A remote agent's tool: its answer and artifacts go to the model, its failure as the tool's error. */
  private async delegate(
    ctx: AgentContext,
    call: LlmToolCall,
    target: RemoteAgentTarget,
    input: RemoteAgentToolInput,
  ): Promise<LlmToolResult> {
    const { url, ...options } = target;
    try {
      const result = await ctx.callAgent(url, input.message, options);
      const artifacts = result.artifacts.map(({ name, parts }) => ({ ...(name && { name }), parts }));
      const output = artifacts.length > 0 ? `${result.text}\nArtifacts: ${JSON.stringify(artifacts)}` : result.text;
      return { id: call.id, name: call.name, output: cap(output, MAX_TOOL_OUTPUT_CHARS) };
    } catch (error) {
      if (!(error instanceof RemoteAgentFailed)) throw error;
      return { id: call.id, name: call.name, output: error.message, isError: true };
    }
  }

  /** The MCP servers' tools, beside the project's (before `ask_user`); listed once per task. */
  private async addMcpTools(servers: Record<string, McpServer>): Promise<void> {
    let listed: Awaited<ReturnType<typeof mcpTools>>;
    try {
      listed = await mcpTools(agentInternals(this.ctx).journal, servers);
    } catch (error) {
      if (isCancellation(error) || error instanceof AgentFailure) throw error;
      throw new AgentFailure(`The tools of the MCP servers could not be listed: ${failureMessage(error)}`);
    }
    const taken = Object.keys(this.tools).concat(this.settings.askUser ? [ASK_USER_TOOL] : []);
    const clash = Object.keys(listed.tools).find((name) => taken.includes(name));
    if (clash) {
      throw new AgentFailure(
        `An MCP tool and a tool of the agent are both named ${clash}: give the server a \`toolPrefix\``,
      );
    }
    const projectSpecs = Object.keys(this.tools).length;
    this.tools = { ...this.tools, ...listed.tools };
    this.toolSpecs = [...this.toolSpecs.slice(0, projectSpecs), ...listed.specs, ...this.toolSpecs.slice(projectSpecs)];
  }

  /** Before a model call: once the budget is reached, a human says whether to go on. */
  private async withinBudget(): Promise<void> {
    const limit = this.budget.reached();
    if (limit === undefined) return;
    const { question, details } = this.budget.question(limit);
    let prompt = question;
    for (;;) {
      const reply = await this.ctx.ask({ question: prompt, details });
      const text = reply.text.trim();
      if (/^continue\b/i.test(text)) {
        this.budget.extend();
        return;
      }
      if (/^stop\b/i.test(text)) {
        throw new AgentFailure(`Stopped at the budget of ${limit} (${this.budget.spentText()} used)`);
      }
      prompt = `Please reply "continue" or "stop" (got "${cap(text, 80)}"). ${question}`;
    }
  }

  private async askUser(ctx: AgentContext, call: LlmToolCall, args: unknown): Promise<LlmToolResult> {
    const parsed = z.object({ question: z.string().min(1) }).safeParse(args);
    if (!parsed.success) {
      return { id: call.id, name: call.name, output: `Invalid arguments: ${issuesOf(parsed.error)}`, isError: true };
    }
    const reply = await ctx.ask({ question: parsed.data.question });
    const output = reply.text || (reply.data === undefined ? '' : JSON.stringify(reply.data));
    return { id: call.id, name: call.name, output: cap(output, MAX_TOOL_OUTPUT_CHARS) };
  }

  /** Asks until the answer is approve or deny; a malformed structured answer is refused by the task itself. */
  private async askApproval(
    ctx: AgentContext,
    name: string,
    tool: AnyLlmTool | McpTool,
    input: unknown,
    reason: string,
  ): Promise<{ kind: 'approve'; input: unknown } | { kind: 'deny'; reason?: string }> {
    const schema = z
      .object({
        decision: z.enum(['approve', 'deny']),
        reason: z.string().optional(),
        // Refused here, as invalid answers are, so the approver hears of it, not the model.
        arguments: tool.quorum
          ? z.undefined({ message: 'a call that needs a quorum is approved as asked: no edited arguments' })
          : ('mcp' in tool ? tool.editedInput : tool.input).optional(),
      })
      .optional()
      .describe('{"decision": "approve" | "deny", "reason"?: string, "arguments"?: edited arguments}');
    const details: JsonObject = {
      tool: name,
      arguments: input as JsonObject,
      reason,
      // The text replies (clients such as the CLI offer them); edited arguments are the schema's data.
      answers: ['approve', 'deny <reason>'],
    };
    let question = `The agent wants to call ${name}(${JSON.stringify(input)}): ${reason}. Reply "approve" or "deny <reason>", or data {"decision": "approve", "arguments": {...}} to approve edited arguments.`;
    for (;;) {
      const reply = await ctx.ask({
        question,
        schema,
        details,
        ...(tool.approvers && { responders: tool.approvers }),
        ...(tool.notByRequester && { notByRequester: true }),
        ...(tool.approvalDeadline !== undefined && { deadline: tool.approvalDeadline }),
        ...(tool.notify && { notify: tool.notify }),
        ...(tool.remind && { remind: tool.remind }),
        ...(tool.escalate && { escalate: tool.escalate }),
        ...(tool.quorum !== undefined && {
          quorum: typeof tool.quorum === 'number' ? { required: tool.quorum } : tool.quorum,
        }),
        onDeadline: tool.onApprovalDeadline ?? {
          kind: 'answer',
          data: { decision: 'deny', reason: 'No decision before the approval deadline' },
        },
      });
      // A quorum's decision is its deciding vote's, however that was worded ("yes", {"approved": true});
      // the arguments cannot change under a quorum (the others approved these).
      const decided = reply.votes?.at(-1);
      if (decided) {
        return decided.decision === 'approve'
          ? { kind: 'approve', input }
          : { kind: 'deny', ...(decided.comment && { reason: decided.comment }) };
      }
      const data = reply.value as z.infer<typeof schema>;
      if (data) {
        return data.decision === 'approve'
          ? { kind: 'approve', input: data.arguments ?? input }
          : { kind: 'deny', ...(data.reason && { reason: data.reason }) };
      }
      const text = reply.text.trim();
      if (/^approve\b/i.test(text)) return { kind: 'approve', input };
      const denied = /^(?:deny|reject)\b[\s:,.-]*(.*)$/is.exec(text);
      if (denied) return { kind: 'deny', ...(denied[1] && { reason: denied[1] }) };
      question = `Please reply "approve" or "deny <reason>" to ${name}(${JSON.stringify(input)}) (got "${cap(text, 80)}").`;
    }
  }
}

function approvalReason(tool: AnyLlmTool, input: unknown): string | undefined {
  const policy = tool.approval ?? 'never';
  if (policy === 'never') return undefined;
  if (policy === 'always') return 'this tool always needs approval';
  // The arguments were parsed by the tool's own schema: the type the policy was written for.
  const verdict = (policy as (args: unknown) => boolean | string)(input);
  if (verdict === false) return undefined;
  return verdict === true ? 'the arguments need approval' : verdict;
}

function issuesOf(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`).join('; ');
}

/** The innermost message of a failure chain (an activity failure's cause says what went wrong). */
function failureMessage(error: unknown): string {
  let current: unknown = error;
  while ((current as { cause?: unknown })?.cause) current = (current as { cause: unknown }).cause;
  return current instanceof Error ? current.message : String(current);
}
