/** The smallest agent: completes at once with the user's text. */
import { defineAgent } from 'a2a-temporal';

export const echoAgent = defineAgent({
  name: 'echo',
  description: 'Echoes the text of your message back and completes.',
  skills: [{ id: 'echo', name: 'Echo', description: 'Repeats your message.', tags: ['example'], examples: ['hello'] }],
  async run(ctx) {
    return ctx.message.text;
  },
});
