/**
 * An a2a-temporal node for the A2A interop kit (a2aproject/a2a-itk): `scripts/itk.sh` serves it with
 * `a2a-temporal dev examples/itk/a2a-temporal.config.ts` beside the kit's own agents.
 */
import { defineConfig } from 'a2a-temporal';

export default defineConfig({
  agents: './agents.ts',
  activities: './activities.ts',
});
