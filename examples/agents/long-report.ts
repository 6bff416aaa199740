/**
 * A long-running agent: writes a report section by section in heartbeating activities and streams
 * it as one chunked artifact. Cancel it mid-way and the running activity stops within a heartbeat.
 */
import type * as activities from '../activities/report.js';
import { defineAgent } from 'a2a-temporal';

interface ReportRequest {
  sections?: number;
  sectionMs?: number;
}

export const longReport = defineAgent({
  name: 'long-report',
  description: 'Writes a long report in sections, streaming each section as it is written.',
  skills: [
    {
      id: 'report',
      name: 'Long report',
      description:
        'A multi-minute report streamed as a chunked artifact. Send {"sections": N, "sectionMs": MS} as data to size it.',
      tags: ['example', 'streaming'],
      examples: ['Write a report on durable execution'],
    },
  ],
  async run(ctx) {
    const request = (ctx.message.data ?? {}) as ReportRequest;
    const sections = request.sections ?? 5;
    const sectionMs = request.sectionMs ?? 2000;
    const topic = ctx.message.text || 'the requested topic';
    const { writeReportSection } = ctx.activities<typeof activities>({
      startToCloseTimeout: '30 minutes',
      heartbeatTimeout: '5 seconds',
    });
    const artifactId = 'report';
    for (let index = 0; index < sections; index++) {
      ctx.status(`Writing section ${index + 1} of ${sections}`);
      const text = await writeReportSection(topic, index, sectionMs);
      ctx.artifact({ artifactId, name: 'report', text, append: index > 0, lastChunk: index === sections - 1 });
    }
    return `Report on ${topic} written in ${sections} sections.`;
  },
});
