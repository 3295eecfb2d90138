// Writes conf/server.conf and conf/log.conf (the documented defaults shipped
// with the package) from the code that defines them. Run after `npm run build`;
// test/conf.test.ts fails when they drift.
import { writeFileSync } from 'node:fs';
import { defaultServerConf } from '../dist/lib/config/config.js';
import { DEFAULT_LOG_CONF } from '../dist/lib/log/log-conf.js';

writeFileSync(new URL('../conf/server.conf', import.meta.url), defaultServerConf());
writeFileSync(new URL('../conf/log.conf', import.meta.url), DEFAULT_LOG_CONF);
console.log('wrote conf/server.conf and conf/log.conf');
