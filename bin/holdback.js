#!/usr/bin/env node
// `npx holdback <command>`: runs the TypeScript CLI through tsx, so no build step stands between a user and it.
require('tsx/cjs');
require('./holdback.ts');
