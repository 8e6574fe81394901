/** What the CDK stack and the pages function both read: the OpenAPI document's file, next to the pages function's index.js, that its bundling writes. */
export const BUILT_OPENAPI_FILE = 'openapi.json';
