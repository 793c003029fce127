import type { FastifyServerOptions } from 'fastify';
import { redactUrl } from '../tokens.ts';

/** A request as the request log line shows it: Fastify's fields, with credentials in the URL blanked. */
interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: Record<string, string | string[] | undefined>;
  socket?: { remotePort?: number };
}

/** Structured logs (pino); the Authorization header never reaches them. */
export function loggerOptions(level: string, stream?: { write(line: string): void }): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'], censor: '[redacted]' },
    serializers: {
      req: (req: LoggedRequest) => ({
        method: req.method, url: redactUrl(req.url ?? ''), version: headerText(req.headers?.['accept-version']), host: req.host,
        remoteAddress: req.ip, remotePort: req.socket?.remotePort,
      }),
    },
    ...(stream ? { stream } : {}),
  };
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
