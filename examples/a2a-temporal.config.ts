/** The example agents, as a user's project would configure them: `a2a-temporal dev examples/a2a-temporal.config.ts`. */
import { defineConfig } from 'a2a-temporal';

export default defineConfig({
  agents: './agents/index.ts',
  activities: './activities/index.ts',
});
