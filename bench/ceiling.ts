/**
 * The ceiling: a bare node:http server that answers each path with the very bytes the real
 * server answered (status, body and every header but those node:http adds itself), looked up
 * by URL and nothing else: the load generator reads the same bytes from both. What it reaches
 * is what this machine, this load generator and HTTP/1.1 on loopback allow, so the real
 * server's figures are reported as a fraction of it.
 *
 *   node --import tsx bench/ceiling.ts ANSWERS.json [--fastify]
 *
 * With --fastify, the same answers go out through a bare Fastify instead (one catch-all route,
 * no hooks, no plugins): what the framework costs by itself (the bench's floor group).
 * Prints its address as the only line on stdout.
 */
import { readFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import Fastify from 'fastify';

/** One recorded answer, as written by the bench (body in base64, so the bytes are exact). */
export interface CannedAnswer {
  status: number;
  headers: Record<string, string>;
  bodyBase64: string;
}

const [file, mode] = process.argv.slice(2);
if (!file || (mode !== undefined && mode !== '--fastify')) {
  process.stderr.write('usage: node --import tsx bench/ceiling.ts ANSWERS.json [--fastify]\n');
  process.exit(2);
}
const recorded = JSON.parse(readFileSync(file, 'utf8')) as Record<string, CannedAnswer>;
// `headers` with the length (node:http), `recorded` as recorded (Fastify sets the length itself, as for any answer).
const answers = new Map<string, { status: number; headers: Record<string, string | number>; recorded: Record<string, string>; body: Buffer }>();
for (const [path, answer] of Object.entries(recorded)) {
  const body = Buffer.from(answer.bodyBase64, 'base64');
  answers.set(path, { status: answer.status, headers: { ...answer.headers, 'content-length': body.length }, recorded: answer.headers, body });
}

let server: Server;
if (mode === '--fastify') {
  const app = Fastify({ logger: false, keepAliveTimeout: 72_000 });
  app.get('*', (request, reply) => {
    const answer = answers.get(request.url);
    if (!answer) return reply.code(404).type('text/plain').send('not recorded\n');
    return reply.code(answer.status).headers(answer.recorded).send(answer.body);
  });
  await app.ready();
  server = app.server;
} else {
  server = createServer((request, response) => {
    const answer = answers.get(request.url ?? '');
    if (!answer) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not recorded\n');
      return;
    }
    response.writeHead(answer.status, answer.headers).end(answer.body);
  });
  server.keepAliveTimeout = 72_000;
}
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  process.stdout.write(`http://127.0.0.1:${address.port}\n`);
});
const stop = (): void => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
