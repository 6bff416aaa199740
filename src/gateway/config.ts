/**
 * The gateway's settings from the environment, shared by the gateway entrypoint and `npm start`:
 * PORT (8080), GRPC_PORT (8081, "off" disables gRPC), HOST, A2A_PUBLIC_URL and
 * A2A_GRPC_PUBLIC_ADDRESS (what the cards advertise), A2A_DEFAULT_AGENT, and A2A_TRUSTED_USER_HEADER
 * (the header an authenticating proxy sets to the caller's account).
 */
import type { GatewayServerOptions } from './server.js';

export type GatewaySettings = Omit<GatewayServerOptions, 'client' | 'agents' | 'taskQueue'>;

export function gatewaySettings(env: NodeJS.ProcessEnv, defaultHost: string): GatewaySettings {
  const port = Number(env.PORT ?? 8080);
  const grpcPort = env.GRPC_PORT === 'off' ? false : Number(env.GRPC_PORT ?? 8081);
  return {
    host: env.HOST ?? defaultHost,
    port,
    grpcPort,
    publicBaseUrl: env.A2A_PUBLIC_URL ?? `http://127.0.0.1:${port}`,
    ...(grpcPort !== false && { grpcPublicAddress: env.A2A_GRPC_PUBLIC_ADDRESS ?? `127.0.0.1:${grpcPort}` }),
    ...(env.A2A_DEFAULT_AGENT && { defaultAgent: env.A2A_DEFAULT_AGENT }),
    ...(env.A2A_TRUSTED_USER_HEADER && { trustedUserHeader: env.A2A_TRUSTED_USER_HEADER }),
  };
}
