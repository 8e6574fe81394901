/** A real dynalite on loopback with Holdback's tables, for the repository tests. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DocumentClient, documentClientConfig } from '../../functions/adapters/dynamodb/document-client';
import { createTableInputs, type TableNames } from '../../functions/definitions/tables';

// dynalite ships no types: it returns a Node http.Server.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const dynalite = require('dynalite') as (options: Record<string, unknown>) => Server;

export interface LocalDynamo {
  doc: DocumentClient;
  /** The low-level client under `doc` (for a test's own DocumentClient around it). */
  client: DynamoDBClient;
  tables: TableNames;
  close(): Promise<void>;
}

let tableSeq = 0;

/** Starts dynalite on 127.0.0.1:0 and creates the tables (names unique per call, so tests can share a server). */
export async function startLocalDynamo(): Promise<LocalDynamo> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = new DynamoDBClient(documentClientConfig({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  }));
  tableSeq += 1;
  const tables: TableNames = {
    orders: `orders-${tableSeq}`, config: `config-${tableSeq}`, rejected: `rejected-${tableSeq}`,
  };
  for (const input of createTableInputs(tables)) {
    await client.send(new CreateTableCommand(input));
    for (;;) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: input.TableName }));
      if (Table?.TableStatus === 'ACTIVE') break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  const doc = new DocumentClient(client);
  return {
    doc,
    client,
    tables,
    close: async () => {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Runs `work` against a dynalite of its own (for tests that need empty tables), closed however `work` ends. */
export async function withLocalDynamo<T>(work: (local: LocalDynamo) => Promise<T>): Promise<T> {
  const local = await startLocalDynamo();
  try {
    return await work(local);
  } finally {
    await local.close();
  }
}
