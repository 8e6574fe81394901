/** Local DynamoDB: an in-process dynalite that the edge hands DynamoDB_20120810.* requests to, and the tables it starts with. */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import {
  CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceInUseException, type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { pause } from './in-flight';

// dynalite ships no types: it is a function returning a Node http.Server that is never made to listen here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const dynalite = require('dynalite') as (options: Record<string, unknown>) => Server;

export class LocalDynamo {
  private readonly server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });

  /** Serves one request with dynalite, which reads the (still unread) body itself. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    this.server.emit('request', req, res);
  }

  /** Creates each table through the edge unless it exists, and waits until all are ACTIVE. */
  async createTables(endpoint: string, region: string, tables: CreateTableCommandInput[]): Promise<void> {
    const client = new DynamoDBClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    try {
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
}
