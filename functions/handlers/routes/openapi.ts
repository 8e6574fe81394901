/** GET /openapi.json: the OpenAPI document of every route. */
import { json } from '../http';
import { OPENAPI_DOCUMENT } from '../openapi';
import type { ApiRoute } from './route';

export const OPENAPI_ROUTES: ApiRoute[] = [
  { method: 'GET', path: '/openapi.json', run: async () => json(200, OPENAPI_DOCUMENT) },
];
