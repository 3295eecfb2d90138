import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { defaultServerConf } from '../lib/config/config.js';
import { DEFAULT_LOG_CONF } from '../lib/log/log-conf.js';

const read = (name: string): string => readFileSync(new URL(`../../conf/${name}`, import.meta.url), 'utf8');

test('the shipped conf/server.conf and conf/log.conf are the defaults the server writes (run scripts/generate-conf.mjs)', () => {
  assert.equal(read('server.conf'), defaultServerConf());
  assert.equal(read('log.conf'), DEFAULT_LOG_CONF);
});
