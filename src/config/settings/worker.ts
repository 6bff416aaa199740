/** Worker Versioning (src/worker/deployment.ts); each wins over the config's `workerDeployment`. */
import { AGENT_VERSIONINGS } from '../../protocol/versioning.js';
import { group, oneOf, setting, text } from '../setting.js';

export const WORKER_SETTINGS = group('worker', {
  A2A_WORKER_DEPLOYMENT: setting({
    parse: text,
    defaultText: "the config's `workerDeployment.name`; none: no Worker Versioning",
    projectKey: 'workerDeployment.name',
    description: 'The worker deployment this worker is a version of.',
  }),
  A2A_WORKER_BUILD_ID: setting({
    parse: text,
    defaultText: "the config's `workerDeployment.buildId`",
    projectKey: 'workerDeployment.buildId',
    description: "This worker's version, e.g. the commit it was built from.",
  }),
  A2A_WORKER_VERSIONING: setting({
    parse: oneOf(AGENT_VERSIONINGS),
    defaultText: '`pinned`',
    projectKey: 'workerDeployment.defaultVersioning',
    description: 'The versioning of agents without `versioning` of their own.',
  }),
});
