/** Names this project's agents and activities once: `a2a-temporal dev`, `worker` and `gateway` all read it. */
import { defineConfig } from 'a2a-temporal';

export default defineConfig({
  agents: './src/agents.ts',
  activities: './src/activities.ts',
});
