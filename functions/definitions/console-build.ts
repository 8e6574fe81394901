/** What the CDK stack and the console's loader both read: the folder, next to the API function's index.js, that its bundling writes the built console to. */
export const BUILT_CONSOLE_DIR = 'console-app';
