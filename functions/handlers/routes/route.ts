/** One API route: its method, its path pattern (API Gateway style, `{name}` parameters) and the use case it runs. */
import type { Method } from '@middy/http-router';
import type { Dependencies } from '../../application/ports';
import type { ApiEvent, ApiResult } from '../http';

export interface ApiRoute {
  method: Exclude<Method, 'ANY'>;
  path: string;
  run: (event: ApiEvent, deps: () => Promise<Dependencies>) => Promise<ApiResult>;
}
