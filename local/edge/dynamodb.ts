/** Local DynamoDB: dynalite on a worker thread, which the edge forwards DynamoDB_20120810.* requests to; and the tables it starts with. */
import { Agent, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import {
  CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceInUseException, type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { pause } from './in-flight';
import { migrateTables } from './table-migration';
import type { ClientHook } from '../../functions/composition-root';
import { withPlanKeys } from './plan-keys';

/**
 * The header that marks the API's DynamoDB calls: dynalite's thread serves them at once, and everyone else's calls (the
 * functions' containers: jobs, releases, order events) a few at a time (dynalite-worker.js), so that a job never makes
 * a user's request wait behind dozens of its calls. The worker names the same header.
 */
export const LOCAL_PRIORITY_HEADER = 'x-holdback-local-priority';

type Stack = { add(middleware: unknown, options: { step: 'build'; name: string; override?: boolean }): void };

/** A client hook that marks each DynamoDB call of the clients it is given as the API's (then runs `hook`, if any). */
export function apiFirst(hook?: ClientHook): ClientHook {
  return (client, service, config) => {
    hook?.(client, service, config);
    if (service !== 'DynamoDB') return;
    const middleware = (next: (args: unknown) => Promise<unknown>) => async (args: { request?: { headers?: Record<string, string> } }) => {
      if (args.request?.headers) args.request.headers[LOCAL_PRIORITY_HEADER] = 'api';
      return next(args);
    };
    (client.middlewareStack as Stack).add(middleware, { step: 'build', name: 'holdbackLocalApiFirst', override: true });
  };
}

/** How long a clean stop waits for LevelDB to close before the thread is ended anyway (every write was synced). */
const CLOSE_WAIT_MS = 3_000;

/**
 * dynalite runs on a thread of its own so that, in the one process of the embedded default, DynamoDB's work uses the
 * second core instead of competing with the handlers, the edge and the sandbox for the first.
 */
export class LocalDynamo {
  private readonly worker: Worker;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private readonly port: Promise<number>;

  /** `path`: the LevelDB folder to keep the tables in (the data folder's); without it they live in memory. */
  constructor(private readonly path?: string) {
    this.worker = new Worker(join(__dirname, 'dynalite-worker.js'), { workerData: { path } });
    this.port = new Promise((resolve, reject) => {
      this.worker.once('message', (message: { port: number }) => resolve(message.port));
      this.worker.once('error', reject);
    });
  }

  /**
   * dynalite's own address: the API's thread talks to it directly (as `AWS_ENDPOINT_URL_DYNAMODB`), a hop shorter than
   * through the edge, which would spend the main thread's time copying every request and answer (the containers use a
   * channel each, below).
   */
  async url(): Promise<string> {
    return `http://127.0.0.1:${await this.port}`;
  }

  /**
   * A MessagePort to dynalite's thread for a local Lambda container (handed to it at its start): its DynamoDB client
   * sends each request over it instead of over loopback HTTP (see dynalite-channel.js and local/lambda/dynamo-channel.ts).
   */
  channel(): MessagePort {
    const { port1, port2 } = new MessageChannel();
    this.worker.postMessage({ kind: 'channel', port: port2 }, [port2]);
    return port1;
  }

  /** Forwards one request, body and answer streamed as they are. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    void this.port.then((port) => {
      const upstream = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent: this.agent }, (answer) => {
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', (error) => {
        if (res.headersSent) return res.destroy(error);
        res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: `local DynamoDB: ${error.message}` }));
      });
      req.pipe(upstream);
    });
  }

  /**
   * Creates each table through the edge unless it exists, and waits until all are ACTIVE. A table made by an older
   * version that lacks an index is first rebuilt with it (see table-migration.ts), one line logged per table.
   */
  async createTables(endpoint: string, region: string, tables: CreateTableCommandInput[], log: (line: string) => void = () => undefined): Promise<void> {
    const client = new DynamoDBClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    try {
      await migrateTables(client, tables, log, withPlanKeys);
      for (const table of tables) {
        try {
          await client.send(new CreateTableCommand(table));
        } catch (error) {
          if (!(error instanceof ResourceInUseException)) throw error;
        }
        for (;;) {
          const { Table } = await client.send(new DescribeTableCommand({ TableName: table.TableName }));
          if (Table?.TableStatus === 'ACTIVE') break;
          await pause(5);
        }
      }
    } finally {
      client.destroy();
    }
  }

  /** Stops the thread (in-memory tables go with it; tables on disk are closed first, with a bound on the wait). */
  async close(): Promise<void> {
    this.agent.destroy();
    if (this.path) {
      const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
      this.worker.postMessage('close');
      const bound = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref());
      await Promise.race([exited, bound]);
    }
    await this.worker.terminate();
  }
}
