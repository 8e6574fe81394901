/** One API route: its method, its path pattern (API Gateway style, `{name}` parameters), the use case it runs and its OpenAPI operation. */
import type { Method } from '@middy/http-router';
import type { Dependencies } from '../../application/ports';
import type { ApiEvent, ApiResult } from '../http';

export interface ApiRoute {
  method: Exclude<Method, 'ANY'>;
  path: string;
  run: (event: ApiEvent, deps: () => Promise<Dependencies>) => Promise<ApiResult>;
  /** The route's operation in the OpenAPI document; `defineRoute` (schema/route-schema.ts) builds it from the route's schema. */
  operation?: Record<string, unknown>;
  /** The one declaration the route reads its request by, and the operation's parameters and requestBody come from. */
  declared?: { params: Record<string, { schema: unknown }>; query: Record<string, { schema: unknown }>; body?: { schema: unknown; read?: unknown } };
}
