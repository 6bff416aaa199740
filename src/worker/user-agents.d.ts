/** The project's agents module, as the workflow bundle sees it (see agents-bundle.ts). */
declare module 'a2a-temporal-user-agents' {
  const agents: unknown;
  export default agents;
}
